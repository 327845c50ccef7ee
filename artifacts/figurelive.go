package artifacts

import "fmt"

// liveLeaves are the figures a running step has on every tick, by family
// ("" the step's own): counts and the percentiles a live view keeps (p50,
// p90, p99, max), not the whole histogram nor the slopes of the end.
var liveLeaves = map[string][]string{
	"":          {"requests", "errors", "dropped", "error_rate", "rps", "throughput_rps", "duration_s", "max"},
	famByName:   {"requests", "errors", "dropped", "error_rate", "max"},
	famTarget:   {"rss_mb.end", "fds.end", "threads.end", "cpu_cores"},
	famSelf:     {"rss_mb.end", "fds.end", "threads.end", "cpu_cores"},
	famProbes:   probeLeaves,
	famCounters: nil, famErrorKinds: nil,
}

// livePercentiles are the percentiles a live view keeps.
var livePercentiles = map[float64]bool{50: true, 90: true, 99: true}

// LiveProblem says why the figure cannot be read while its step runs
// (an action's `when:` reads it on every tick); "" when it can.
func (f Figure) LiveProblem() string {
	leaves, ok := liveLeaves[f.family]
	switch {
	case !ok:
		return fmt.Sprintf("%s figures are known only at the step's end; while it runs: the step's counts, rates and p50/p90/p99/max, by_name.NAME.(the same), counters.NAME, error_kinds.KIND, probes.NAME.X, target.(rss_mb.end|fds.end|threads.end|cpu_cores)", f.family)
	case f.family == famCounters || f.family == famErrorKinds:
		return ""
	case f.quantile > 0 && !livePercentiles[f.quantile]:
		return fmt.Sprintf("%s: while the step runs only p50, p90, p99 and max are kept", f.Path)
	case f.quantile > 0 || contains(leaves, f.leaf):
		return ""
	}
	return fmt.Sprintf("%s is known only at the step's end; while it runs: %v", f.Path, leaves)
}
