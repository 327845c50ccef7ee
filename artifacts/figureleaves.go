package artifacts

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// targetLeaves are the figures X of target.X, self.X, targets.NAME.X and
// targets_sum.X: every figure TargetStats records.
var targetLeaves = []string{"rss_mb.start", "rss_mb.peak", "rss_mb.end", "rss_growth_mb", "rss_slope_mb_per_min", "rss_tail_slope_mb_per_min", "rss_rising",
	"fds.start", "fds.peak", "fds.end", "fds_growth", "fds_slope_per_min", "fds_per_unit", "cpu_cores", "cpu_cores_peak", "threads.start", "threads.peak", "threads.end",
	"working_set_mb.start", "working_set_mb.peak", "working_set_mb.end", "pss_mb.start", "pss_mb.peak", "pss_mb.end", "uss_mb.start", "uss_mb.peak", "uss_mb.end",
	"kernel_peak_mb", "throttled_periods", "throttled_s", "oom_kills", "samples", "span_s"}

// targetFigure reads a target figure. The memory a target is read by
// only some ways (a cgroup's working set, a process tree's PSS and USS)
// is an error on a target read otherwise, saying why, never a 0.
func targetFigure(t *TargetStats, leaf string) (float64, error) {
	switch leaf {
	case "rss_growth_mb":
		return t.RSSMB.End - t.RSSMB.Start, nil
	case "fds_growth":
		return t.FDs.End - t.FDs.Start, nil
	case "rss_rising":
		return boolFigure(t.RSSRising), nil
	case "samples":
		if t.RSSFit == nil {
			return 0, fmt.Errorf("target samples: no slope fit kept (an artifact written before fits were kept)")
		}
		return float64(t.RSSFit.N), nil
	}
	if r, part, ok := strings.Cut(leaf, "."); ok {
		rg, err := targetRange(t, r)
		if err != nil {
			return 0, err
		}
		return map[string]float64{"start": rg.Start, "peak": rg.Peak, "end": rg.End}[part], nil
	}
	return map[string]float64{
		"rss_slope_mb_per_min": t.RSSSlopeMBPerMin, "rss_tail_slope_mb_per_min": t.RSSTailSlopeMBMin,
		"fds_slope_per_min": t.FDsSlopePerMin, "fds_per_unit": t.FDsPerUnit, "cpu_cores": t.CPUCores,
		"cpu_cores_peak": t.CPUCoresPeak, "kernel_peak_mb": t.KernelPeakMB, "throttled_periods": float64(t.ThrottledPeriods),
		"throttled_s": t.ThrottledS, "oom_kills": float64(t.OOMKills), "span_s": t.SpanS,
	}[leaf], nil
}

// targetRange is one of a target's start/peak/end ranges by its JSON name.
func targetRange(t *TargetStats, name string) (Range, error) {
	optional := map[string]struct {
		r   *Range
		why string
	}{
		"working_set_mb": {t.WorkingSetMB, "only a cgroup target has a working set"},
		"pss_mb":         {t.PSSMB, "only a target sampled as a process tree (tree: true) has PSS"},
		"uss_mb":         {t.USSMB, "only a target sampled as a process tree (tree: true) has USS"},
	}
	if o, ok := optional[name]; ok {
		if o.r == nil {
			return Range{}, fmt.Errorf("no %s in this step: %s", name, o.why)
		}
		return *o.r, nil
	}
	return map[string]Range{"rss_mb": t.RSSMB, "fds": t.FDs, "threads": t.Threads}[name], nil
}

func boolFigure(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// probeFigure reads probes.NAME.LEAF from the step's probes
// (`steps[].probes.NAME`). The tail slope is kept only for the probe a
// soak policy watches: another probe's is an error saying so.
func probeFigure(s *Step, f Figure) (float64, error) {
	p, ok := s.Probes[f.name]
	if !ok {
		return 0, absent(f, slices.Sorted(maps.Keys(s.Probes)))
	}
	switch f.leaf {
	case "tail_slope_per_min":
		if p.TailSlopePerMin == nil {
			return 0, fmt.Errorf("probe %q has no tail slope in this step (only the probe a soak policy watches has one, once its window holds enough reads)", f.name)
		}
		return *p.TailSlopePerMin, nil
	case "samples":
		return float64(p.Samples), nil
	case "errors":
		return float64(p.Errors), nil
	}
	if p.Samples == 0 {
		return 0, fmt.Errorf("probe %q: no successful read in this step (%d failed)", f.name, p.Errors)
	}
	if p.Errors > p.Samples {
		// A server too slow to answer its probe is what many checks
		// exist to catch: a figure of the few reads that got through
		// would hold for the wrong reason.
		return 0, fmt.Errorf("probe %q: %d of %d reads failed in this step: its %s stands on too few reads", f.name, p.Errors, p.Errors+p.Samples, f.leaf)
	}
	v, ok := map[string]float64{"min": p.Min, "max": p.Max, "mean": p.Mean, "last": p.Last, "slope_per_min": p.SlopePerMin}[f.leaf]
	if !ok {
		return 0, fmt.Errorf("probe %q has no %s", f.name, f.leaf)
	}
	return v, nil
}

// runnerValueFigure parses extra.NAME, a runner's own figure of the
// step (`steps[].extra`: the shutdown kind's time_to_exit_ms, the spawn
// kind's cycles): any name, checked at run time.
func runnerValueFigure(f Figure, name string) (Figure, error) {
	if name == "" || strings.ContainsAny(name, " \t") {
		return f, fmt.Errorf("figure %q: want extra.NAME (a runner's figure) or extra.NAME.X (a timing, X: %s)", f.Path, strings.Join(storedLeaves, ", "))
	}
	f.name = name
	return f, nil
}

// runnerValue reads a runner's own figure: a number, or a yes/no as 1/0.
func runnerValue(s *Step, f Figure) (float64, error) {
	v, ok := s.Extra[f.name]
	if !ok {
		have := slices.Sorted(maps.Keys(s.Extra))
		for name := range s.ExtraMS {
			have = append(have, name+".X")
		}
		return 0, absent(f, have)
	}
	switch x := reflect.ValueOf(v); {
	case x.CanFloat():
		return x.Float(), nil
	case x.CanInt():
		return float64(x.Int()), nil
	case x.CanUint():
		return float64(x.Uint()), nil
	case x.Kind() == reflect.Bool:
		return boolFigure(x.Bool()), nil
	}
	return 0, fmt.Errorf("extra %q is %v in this step, not a number", f.name, v)
}
