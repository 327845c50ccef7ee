package report

import (
	"fmt"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
)

// reportFunctions bounds the rows a step has in the report's "What got
// slower" and "What grew" tables.
const reportFunctions = 8

// profileTables adds to the section what the profiles beside its runs
// say (DiffProfiles): "What got slower" when base and cur both saved CPU
// profiles, "What grew" where cur's RSS rose; profiles that could not be
// read are warnings. base may be nil.
func (s *section) profileTables(base, cur *artifacts.Artifact) {
	diffs := compare.DiffProfiles(base, cur)
	multi := len(cur.Steps) > 1
	if t := slowerTable(diffs, multi); t != nil {
		s.tables = append(s.tables, titled{title: fmt.Sprintf("What got slower: CPU share by function, %s → %s", stamp(base), stamp(cur)), t: t})
	}
	if t := grewTable(diffs, multi); t != nil {
		s.tables = append(s.tables, titled{title: "What grew: heap in use by allocation site, start → end of the step", t: t})
	}
	for _, d := range diffs {
		for _, p := range d.Problems {
			s.warnings = append(s.warnings, stepPrefix(d.Step, multi)+"profiles: "+p)
		}
	}
}

// slowerTable lists each step's functions whose CPU share grew most;
// nil when no step has CPU profiles on both sides.
func slowerTable(diffs []compare.ProfileDiff, multi bool) *table {
	t := &table{header: []string{"function", "base %", "current %", "Δ pts", "cum base %", "cum current %"},
		right: []bool{false, true, true, true, true, true}}
	t.withStep(multi)
	for _, d := range diffs {
		if !d.CPU {
			continue
		}
		if len(d.Slower) == 0 {
			t.addStep(multi, d.Step, "(no function's share grew)")
		}
		for _, f := range d.Slower[:min(len(d.Slower), reportFunctions)] {
			t.addStep(multi, d.Step, artifacts.ShortFunction(f.Function), pct1(f.BaseFlat), pct1(f.CurrentFlat),
				fmt.Sprintf("%+.1f", 100*f.Growth()), pct1(f.BaseCum), pct1(f.CurrentCum))
		}
	}
	if len(t.rows) == 0 {
		return nil
	}
	return t
}

// grewTable lists each step's allocation sites whose bytes in use grew
// most; nil when none did.
func grewTable(diffs []compare.ProfileDiff, multi bool) *table {
	t := &table{header: []string{"allocation site", "start MB", "end MB", "grew MB"}, right: []bool{false, true, true, true}}
	t.withStep(multi)
	for _, d := range diffs {
		for _, g := range d.Grew[:min(len(d.Grew), reportFunctions)] {
			t.addStep(multi, d.Step, artifacts.ShortFunction(g.Function), mb2(g.Start), mb2(g.End), "+"+mb2(g.Grew()))
		}
	}
	if len(t.rows) == 0 {
		return nil
	}
	return t
}

// withStep puts a step column first when the run has several steps.
func (t *table) withStep(multi bool) {
	if multi {
		t.header = append([]string{"step"}, t.header...)
		t.right = append([]bool{false}, t.right...)
	}
}

// addStep adds a row, led by its step's label when the run has several.
func (t *table) addStep(multi bool, step string, cells ...string) {
	if multi {
		cells = append([]string{step}, cells...)
	}
	t.add(cells...)
}

func stepPrefix(step string, multi bool) string {
	if multi {
		return step + ": "
	}
	return ""
}

// pct1 is a fraction of 1 as a percentage with one decimal.
func pct1(f float64) string { return fmt.Sprintf("%.1f", 100*f) }

// mb2 is a count of bytes in megabytes (10^6) with two decimals.
func mb2(b int64) string { return fmt.Sprintf("%.2f", float64(b)/1e6) }
