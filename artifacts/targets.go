package artifacts

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Families of the figures of a group's several targets: targets.NAME.X
// (one target by its plan name) and targets_sum.X (their sum).
const (
	famTargets    = "targets"
	famTargetsSum = "targets_sum"
)

// targetsFigure parses the rest of targets.NAME.X and targets_sum.X. A
// target's name may hold dots: the leaf is matched from the end.
func targetsFigure(f Figure, rest string) (Figure, error) {
	if f.family == famTargetsSum {
		if !contains(targetLeaves, rest) {
			return f, unknownLeaf(f, rest, "targets_sum.X", targetLeaves)
		}
		f.leaf = rest
		return f, nil
	}
	for _, leaf := range targetLeaves {
		if name, ok := strings.CutSuffix(rest, "."+leaf); ok && name != "" {
			f.name, f.leaf = name, leaf
			return f, nil
		}
	}
	return f, fmt.Errorf("unknown figure %q (targets.NAME.X, X: %s)", f.Path, strings.Join(targetLeaves, ", "))
}

// ofTargets reads a targets.NAME.X or targets_sum.X figure from s.
func (f Figure) ofTargets(s *Step) (float64, error) {
	if f.family == famTargetsSum {
		if s.TargetsSum == nil {
			return 0, fmt.Errorf("no targets_sum figures in this step (it watched fewer than two targets)")
		}
		return targetFigure(s.TargetsSum, f.leaf)
	}
	t := s.Targets[f.name]
	if t == nil {
		return 0, absent(f, slices.Sorted(maps.Keys(s.Targets)))
	}
	return targetFigure(t, f.leaf)
}

// TargetNames are the names in s.Targets, sorted.
func (s *Step) TargetNames() []string { return slices.Sorted(maps.Keys(s.Targets)) }

// TargetSum is the name of the sum of a step's targets in comparison rows
// ("rss_slope[sum]") and report tables.
const TargetSum = "sum"

// BaseMetric is a row's metric without its "[name]" suffix: "rss_slope"
// for "rss_slope[api]", "p99" for "p99[ping]".
func BaseMetric(metric string) string {
	m, _, _ := strings.Cut(metric, "[")
	return m
}

// compareTargets adds the target metrics of each of a step's several
// targets, named in the metric ("rss_slope[api]", "fds_slope[db]"), and
// of their sum ("rss_slope[sum]"), for targets both steps watched. A step
// of one target has its rows under the plain names already.
func compareTargets(out *Comparison, group string, b, c *Step, opts CompareOptions) {
	if len(c.Targets) < 2 {
		return
	}
	for _, name := range c.TargetNames() {
		if bt := b.Targets[name]; bt != nil {
			compareTargetFigures(out, group, c.Label, "["+name+"]", bt, c.Targets[name], opts)
		}
	}
	if b.TargetsSum != nil && c.TargetsSum != nil {
		compareTargetFigures(out, group, c.Label, "["+TargetSum+"]", b.TargetsSum, c.TargetsSum, opts)
	}
}

// compareTargetFigures adds a row per target metric of two targets'
// figures, whose metric names get suffix.
func compareTargetFigures(out *Comparison, group, label, suffix string, b, c *TargetStats, opts CompareOptions) {
	bs, cs := &Step{Target: b}, &Step{Target: c}
	for _, m := range metrics {
		if m.trend == nil && m.name != MetricFDsPerUnit {
			continue
		}
		bv, _ := m.value(bs)
		cv, _ := m.value(cs)
		row := Row{Group: group, Step: label, Metric: m.name + suffix, Base: bv, Current: cv,
			DeltaPct: deltaPct(bv, cv), LowerIsBetter: m.lowerBetter, Verdict: Same, Test: TestNone,
			P: math.NaN(), BaseCIPct: math.NaN(), CurrentCIPct: math.NaN()}
		if m.judge == byTrend {
			judgeTrend(&row, m, b, c, opts)
		}
		out.Rows = append(out.Rows, row)
	}
}

// Memory is the target's memory as its kind is read: "working set" (a
// cgroup's, as the kubelet computes it), "PSS" (a process tree's), else
// "RSS".
func (ts *TargetStats) Memory() (kind string, r Range) {
	switch {
	case ts.WorkingSetMB != nil:
		return "working set", *ts.WorkingSetMB
	case ts.PSSMB != nil:
		return "PSS", *ts.PSSMB
	}
	return "RSS", ts.RSSMB
}

// soakTargetStats is the figures of the target the group's soak policy
// watched: the one its config names (soak.extend_while_rss_rising.target)
// among the step's targets, else the first (Target).
func soakTargetStats(s *Step, cfg map[string]any) *TargetStats {
	soak, _ := cfg["soak"].(map[string]any)
	rule, _ := soak["extend_while_rss_rising"].(map[string]any)
	if name, _ := rule["target"].(string); name != "" && s.Targets[name] != nil {
		return s.Targets[name]
	}
	return s.Target
}
