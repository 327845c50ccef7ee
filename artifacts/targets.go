package artifacts

import (
	"fmt"
	"maps"
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
