package artifacts

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Figure is one figure of a step named by its path, as a threshold check
// writes it: "p95", "p99.9", "error_rate", "target.fds_per_unit",
// "counters.reconnects", "by_name.ping.p99", "probes.backlog.max",
// "windows.rotation.p99". Parse
// it with ParseFigure (which checks its shape) and read it from a step
// with Of. Latencies and timings are in milliseconds; percentiles of the
// step and of its named requests come from their HDR histograms, so any
// percentile is exact, not interpolated from the stored ones.
type Figure struct {
	// Path is the figure as written.
	Path   string
	family string // "" for the step's own figures, else target, counters, by_name, …
	name   string // the dynamic name: a counter, a request name, a status code
	leaf   string // the figure within the family: "p99", "fds_per_unit", "max"
	// quantile is the percentile (0–100] of a leaf "pNN", 0 for others.
	quantile float64
}

// Figure families whose second segment is a name the run gives.
const (
	famTarget     = "target"
	famSelf       = "self"
	famService    = "service"
	famCounters   = "counters"
	famStatus     = "status"
	famErrorKinds = "error_kinds"
	famExtra      = "extra"
	famByName     = "by_name"
	famProbes     = "probes"
)

// Leaves of each family (percentiles "pNN" aside).
var (
	stepLeaves = []string{"max", "mean", "min", "requests", "errors", "dropped", "drained", "late", "error_rate", "rps", "throughput_rps", "ok_rps", "offered_rps", "duration_s", "paused_s",
		"samples", "in_flight.max", "in_flight.end"}
	storedLeaves = []string{"p50", "p90", "p99", "p999", "p99.9", "max", "mean", "min"}
	byNameLeaves = []string{"max", "mean", "min", "requests", "errors", "dropped", "error_rate"}
	probeLeaves  = []string{"min", "max", "mean", "last", "slope_per_min", "tail_slope_per_min", "samples", "errors"}
	msLeaves     = map[string]bool{"max": true, "mean": true, "min": true}
)

// KnownFigures lists the figures a threshold may name, for messages.
func KnownFigures() string {
	return "pNN (any percentile: p50, p95, p99.9, …), " + strings.Join(stepLeaves, ", ") +
		", service.(p50|p90|p99|p999|max|mean), target.X, self.X, targets.NAME.X and targets_sum.X (X: " + strings.Join(targetLeaves, ", ") +
		"), counters.NAME, status.CODE, error_kinds.KIND, extra.NAME.(" + strings.Join(storedLeaves, "|") + "), extra.NAME (a runner's own figure)" +
		", by_name.NAME.(pNN|" + strings.Join(byNameLeaves, "|") + "), probes.NAME.(" + strings.Join(probeLeaves, "|") + ")" +
		", windows.NAME.(pNN|" + strings.Join(windowLeaves, "|") + ")"
}

var (
	percentileRE = regexp.MustCompile(`^p([0-9]+(?:\.[0-9]+)?)$`)
	namedLeafRE  = regexp.MustCompile(`^(.+)\.(p[0-9]+(?:\.[0-9]+)?|[a-z_]+)$`)
)

// parseQuantile reads "p95" as 95, "p99.9" as 99.9, and the artifact's
// own "p999" (and "p9999") as 99.9 (99.99); 0 when leaf is no percentile.
func parseQuantile(leaf string) (float64, error) {
	m := percentileRE.FindStringSubmatch(leaf)
	if m == nil {
		return 0, nil
	}
	digits := m[1]
	if !strings.Contains(digits, ".") && len(digits) > 2 && strings.HasPrefix(digits, "99") {
		digits = "99." + digits[2:]
	}
	q, err := strconv.ParseFloat(digits, 64)
	if err != nil || q <= 0 || q > 100 {
		return 0, fmt.Errorf("percentile %q out of range: want more than p0, at most p100", leaf)
	}
	return q, nil
}

// ParseFigure checks the shape of a figure's path. For the families whose
// names the run gives (counters, status, by_name, extra, probes) only the
// shape is checked here; a name the step lacks fails the check at run time.
func ParseFigure(path string) (Figure, error) {
	f := Figure{Path: path}
	family, rest, dotted := strings.Cut(path, ".")
	unknown := fmt.Errorf("unknown figure %q (%sfigures: %s)", path, nearestFigures(path), KnownFigures())
	if !dotted || percentileRE.MatchString(path) || strings.HasPrefix(path, "in_flight.") {
		q, err := parseQuantile(path)
		if err != nil {
			return f, err
		}
		if q == 0 && !contains(stepLeaves, path) {
			return f, unknown
		}
		f.leaf, f.quantile = path, q
		return f, nil
	}
	f.family = family
	switch family {
	case famTargets, famTargetsSum:
		return targetsFigure(f, rest)
	case famTarget, famSelf:
		if !contains(targetLeaves, rest) {
			return f, unknownLeaf(f, rest, family+".X", targetLeaves)
		}
		f.leaf = rest
	case famService:
		if !contains(storedLeaves, rest) {
			return f, unknownLeaf(f, rest, "service.X", storedLeaves)
		}
		f.leaf = rest
	case famCounters, famStatus, famErrorKinds:
		if rest == "" || strings.ContainsAny(rest, " \t") {
			return f, fmt.Errorf("figure %q: want %s.NAME", path, family)
		}
		f.name = rest
	case famExtra, famByName, famProbes, famWindows:
		return namedFigure(f, rest)
	default:
		return f, unknown
	}
	return f, nil
}

// namedFigure parses the NAME.LEAF of by_name, extra and probes figures.
func namedFigure(f Figure, rest string) (Figure, error) {
	leaves := map[string][]string{famExtra: storedLeaves, famByName: byNameLeaves, famProbes: probeLeaves, famWindows: windowLeaves}[f.family]
	m := namedLeafRE.FindStringSubmatch(rest)
	if f.family == famExtra && (m == nil || !contains(leaves, m[2]) && !percentileRE.MatchString(m[2])) {
		return runnerValueFigure(f, rest)
	}
	if m == nil {
		return f, fmt.Errorf("figure %q: want %s.NAME.X (X: %s)", f.Path, f.family, shownLeaves(f.family, leaves))
	}
	f.name, f.leaf = m[1], m[2]
	if f.family == famByName || f.family == famWindows {
		q, err := parseQuantile(f.leaf)
		if err != nil {
			return f, err
		}
		f.quantile = q
		if q > 0 {
			return f, nil
		}
	}
	if !contains(leaves, f.leaf) {
		return f, fmt.Errorf("figure %q: unknown %q (%s%s.NAME.X, X: %s)", f.Path, f.leaf, nearestNote(f.leaf, leaves), f.family, shownLeaves(f.family, leaves))
	}
	return f, nil
}

func shownLeaves(family string, leaves []string) string {
	if family == famByName || family == famWindows {
		return "pNN, " + strings.Join(leaves, ", ")
	}
	return strings.Join(leaves, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Millis reports whether the figure is a time in milliseconds (a latency
// percentile, max, mean or min, a service time, an extra timing, a
// runner's own figure whose name ends in _ms), whose limits a plan may
// write as durations.
func (f Figure) Millis() bool {
	switch f.family {
	case "", famByName, famWindows:
		return f.quantile > 0 || msLeaves[f.leaf]
	case famService:
		return true
	case famExtra:
		return f.leaf != "" || strings.HasSuffix(f.name, "_ms")
	}
	return false
}

// Of reads the figure from step s. A name the step lacks (a counter never
// counted, a request name never sent, a probe not sampled, no watched
// target) is an error saying so: a check on it fails, it never passes.
func (f Figure) Of(s *Step) (float64, error) {
	switch f.family {
	case "":
		return stepFigure(s, f)
	case famTarget, famSelf:
		t := s.Target
		if f.family == famSelf {
			t = s.Self
		}
		if t == nil {
			return 0, fmt.Errorf("no %s figures in this step (no watched %s)", f.family, map[string]string{famTarget: "target", famSelf: "benchtui process"}[f.family])
		}
		return targetFigure(t, f.leaf)
	case famTargets, famTargetsSum:
		return f.ofTargets(s)
	case famService:
		return storedPercentile(s.ServiceMS, f.leaf), nil
	case famCounters:
		return countIn(s.Counters, f, false)
	case famStatus:
		return countIn(s.Status, f, true)
	case famErrorKinds:
		return countIn(s.ErrorKinds, f, true)
	case famExtra:
		if f.leaf == "" {
			return runnerValue(s, f)
		}
		p, ok := s.ExtraMS[f.name]
		if !ok {
			return 0, absent(f, sortedKeys(s.ExtraMS))
		}
		return storedPercentile(p, f.leaf), nil
	case famByName:
		n, ok := s.ByName[f.name]
		if !ok {
			return 0, absent(f, sortedKeys(s.ByName))
		}
		return byNameFigure(n, f)
	case famProbes:
		return probeFigure(s, f)
	case famWindows:
		return windowFigure(s, f)
	}
	return 0, fmt.Errorf("unknown figure %q", f.Path)
}

// absent is the error of a name the step lacks, naming the nearest of
// those it has, then (a bounded list of) them all.
func absent(f Figure, have []string) error {
	return fmt.Errorf("%s has no %q in this step (%shas: %s)", f.family, f.name, nearestNote(f.name, have), boundedList(have))
}

// countIn reads a count by name. Status codes and error kinds are counted
// as they occur, so an absent one is a true zero, as long as the step
// counts them at all; an absent counter is a name the run never gave.
func countIn(m map[string]int64, f Figure, zeroWhenAbsent bool) (float64, error) {
	n, ok := m[f.name]
	switch {
	case ok:
		return float64(n), nil
	case zeroWhenAbsent && (m != nil || f.family == famErrorKinds):
		return 0, nil
	}
	return 0, absent(f, sortedKeys(m))
}

func stepFigure(s *Step, f Figure) (float64, error) {
	switch f.leaf {
	case "requests":
		return float64(s.Requests), nil
	case "errors":
		return float64(s.Errors), nil
	case "dropped":
		return float64(s.Dropped), nil
	case "drained":
		return float64(s.Drained), nil
	case "late":
		return float64(s.Late), nil
	case "error_rate":
		return rate(s.Errors, s.Requests), nil
	case "rps", "throughput_rps":
		return s.ThroughputRPS, nil
	case "ok_rps":
		return s.OKRPS, nil
	case "offered_rps":
		return s.OfferedRPS, nil
	case "duration_s":
		return s.DurationS, nil
	case "paused_s":
		return s.PausedS, nil
	case "samples":
		return float64(s.Samples.N(SampleRPS)), nil
	case "in_flight.max", "in_flight.end":
		if s.InFlight == nil {
			return 0, fmt.Errorf("%s: no in-flight figures in this step (an artifact written before they were kept)", f.Path)
		}
		if f.leaf == "in_flight.max" {
			return float64(s.InFlight.Max), nil
		}
		return float64(s.InFlight.End), nil
	}
	return latencyFigure(s.Histogram, s.LatencyMS, f)
}

// latencyFigure reads a percentile, max, mean or min from the encoded
// histogram; without one (an artifact that kept none) the stored
// percentiles answer for the figures they hold.
func latencyFigure(encoded string, stored Percentiles, f Figure) (float64, error) {
	if encoded == "" {
		if v, ok := storedFigure(stored, f); ok {
			return v, nil
		}
		return 0, fmt.Errorf("%s: no histogram in this step to read it from", f.Path)
	}
	h, err := DecodeHistogram(encoded)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", f.Path, err)
	}
	if h.TotalCount() == 0 {
		return 0, nil
	}
	switch {
	case f.quantile > 0:
		return float64(h.ValueAtQuantile(f.quantile)) / 1000, nil
	case f.leaf == "max":
		return float64(h.Max()) / 1000, nil
	case f.leaf == "min":
		return float64(h.Min()) / 1000, nil
	}
	return h.Mean() / 1000, nil
}

// storedFigure is f from stored percentiles, when they hold it.
func storedFigure(p Percentiles, f Figure) (float64, bool) {
	for _, s := range []struct {
		q float64
		v float64
	}{{50, p.P50}, {90, p.P90}, {99, p.P99}, {99.9, p.P999}} {
		if f.quantile == s.q {
			return s.v, true
		}
	}
	switch f.leaf {
	case "max":
		return p.Max, true
	case "mean":
		return p.Mean, true
	case "min":
		return p.Min, true
	}
	return 0, false
}

func storedPercentile(p Percentiles, leaf string) float64 {
	q, _ := parseQuantile(leaf)
	v, _ := storedFigure(p, Figure{leaf: leaf, quantile: q})
	return v
}

func byNameFigure(n NamedStep, f Figure) (float64, error) {
	switch f.leaf {
	case "requests":
		return float64(n.Requests), nil
	case "errors":
		return float64(n.Errors), nil
	case "dropped":
		return float64(n.Dropped), nil
	case "error_rate":
		return rate(n.Errors, n.Requests), nil
	}
	return latencyFigure(n.Histogram, n.LatencyMS, f)
}

func rate(errors, requests int64) float64 {
	if requests <= 0 {
		return 0
	}
	return float64(errors) / float64(requests)
}
