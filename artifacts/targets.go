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
			return f, fmt.Errorf("unknown figure %q (targets_sum.X, X: %s)", f.Path, strings.Join(targetLeaves, ", "))
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
		return targetFigure(s.TargetsSum, f.leaf), nil
	}
	t := s.Targets[f.name]
	if t == nil {
		return 0, absent(f, slices.Sorted(maps.Keys(s.Targets)))
	}
	return targetFigure(t, f.leaf), nil
}

// TargetNames are the names in s.Targets, sorted.
func (s *Step) TargetNames() []string { return slices.Sorted(maps.Keys(s.Targets)) }
