package artifacts_test

import (
	"strings"
	"testing"

	. "github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	. "github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/artifacts/report"
)

// targetsStep watches api (leaking at apiSlope MB/min) and db (flat).
func targetsStep(apiSlope float64) Step {
	api := &TargetStats{RSSMB: Range{Start: 10, Peak: 40, End: 38}, RSSSlopeMBPerMin: apiSlope, RSSSlopeSE: 0.1,
		FDs: Range{Start: 10, Peak: 12, End: 11}, CPUCores: 0.5, CPUCoresPeak: 0.9, SpanS: 600}
	db := &TargetStats{RSSMB: Range{Start: 100, Peak: 101, End: 100}, RSSSlopeSE: 0.1,
		FDs: Range{Start: 30, Peak: 30, End: 30}, CPUCores: 0.2, CPUCoresPeak: 0.3, SpanS: 600}
	sum := &TargetStats{RSSMB: Range{Start: 110, Peak: 140, End: 138}, RSSSlopeMBPerMin: apiSlope, RSSSlopeSE: 0.14,
		FDs: Range{Start: 40, Peak: 42, End: 41}, CPUCores: 0.7, CPUCoresPeak: 1.1, SpanS: 600}
	return Step{Label: "soak", Target: api, Targets: map[string]*TargetStats{"api": api, "db": db}, TargetsSum: sum}
}

func TestTargetsFigures(t *testing.T) {
	s := targetsStep(3)
	for path, want := range map[string]float64{
		"targets.api.rss_mb.peak": 40, "targets.db.fds.end": 30, "targets.db.cpu_cores_peak": 0.3,
		"targets_sum.rss_mb.end": 138, "targets_sum.cpu_cores": 0.7, "target.cpu_cores_peak": 0.9,
	} {
		if got, err := figureOf(t, &s, path); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", path, got, err, want)
		}
	}
	if _, err := figureOf(t, &s, "targets.web.rss_mb.peak"); err == nil || !strings.Contains(err.Error(), "has: api, db") {
		t.Errorf("absent target: %v", err)
	}
	one := Step{Target: s.Target}
	if _, err := figureOf(t, &one, "targets_sum.rss_mb.peak"); err == nil {
		t.Error("targets_sum of a step of one target: no error")
	}
	for _, bad := range []string{"targets.api.rss", "targets.rss_mb.peak", "targets_sum.colour"} {
		if _, err := ParseFigure(bad); err == nil {
			t.Errorf("ParseFigure(%q): no error", bad)
		}
	}
}

// A leak in the second target is judged under its own name and the sum's.
func TestCompareTargetsByName(t *testing.T) {
	b, c := targetsStep(0), targetsStep(0)
	db := *c.Targets["db"]
	db.RSSSlopeMBPerMin = 12
	c.Targets["db"] = &db
	sum := *c.TargetsSum
	sum.RSSSlopeMBPerMin = 12
	c.TargetsSum = &sum
	cmp := compareSteps(b, c, CompareOptions{})
	if r := rowOf(t, cmp, "rss_slope[db]"); r.Verdict != Worse {
		t.Errorf("rss_slope[db]: %+v", r)
	}
	if r := rowOf(t, cmp, "rss_slope[sum]"); r.Verdict != Worse {
		t.Errorf("rss_slope[sum]: %+v", r)
	}
	if r := rowOf(t, cmp, "rss_slope[api]"); r.Verdict != Same {
		t.Errorf("rss_slope[api]: %+v", r)
	}
	rowOf(t, cmp, "fds_slope[api]")
	var md strings.Builder
	if err := report.WriteMarkdown(&md, cmp); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "12.00 MB/min") {
		t.Errorf("the named slope is not formatted as a slope:\n%s", md.String())
	}
}

// TestReportRowPerTarget: a row per target and their sum, each with the
// memory its kind is read by (a cgroup's working set, not its usage).
func TestReportRowPerTarget(t *testing.T) {
	st := targetsStep(3)
	db := *st.Targets["db"]
	db.WorkingSetMB = &Range{Start: 20, Peak: 31.5, End: 30}
	st.Targets["db"] = &db
	out := report.Report([]*Artifact{artifactstest.Artifact("G1", artifactstest.T0, st)})
	for _, want := range []string{"Targets", "| soak | sum ", "140.0 / 138.0 |", "Target CPU peak"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for row, cells := range map[string][]string{"| soak | api ": {"| RSS ", "10.0 / 40.0 / 38.0 |"}, "| soak | db ": {"| working set |", "20.0 / 31.5 / 30.0 |"}} {
		line := lineWith(out, row)
		for _, c := range cells {
			if !strings.Contains(line, c) {
				t.Errorf("row %q lacks %q: %q", row, c, line)
			}
		}
	}
}

// A soak that watched the second target judges the leak on its slope.
func TestSoakVerdictOnItsTarget(t *testing.T) {
	st := targetsStep(0) // api flat
	db := *st.Targets["db"]
	db.RSSTailSlopeMBMin = 9
	st.Targets["db"] = &db
	st.Events = []Event{{T: 60, Kind: EventExtended, Note: "+1m0s db RSS rising 9.00 MB/min > 1 MB/min"}}
	a := artifactstest.Artifact("G1", artifactstest.T0, st)
	a.Group.Config = map[string]any{"soak": map[string]any{"extend_while_rss_rising": map[string]any{
		"slope_mb_per_min": 1.0, "target": "db"}}}
	if e := Outcome(a); !e.Leak() || e.Soaks[0].SlopeMBPerMin != 9 {
		t.Errorf("soak on db: %+v", e.Soaks)
	}
	a.Group.Config = map[string]any{"soak": map[string]any{"extend_while_rss_rising": map[string]any{"slope_mb_per_min": 1.0}}}
	if e := Outcome(a); e.Leak() {
		t.Errorf("soak on the first (flat) target: %+v", e.Soaks)
	}
}

// lineWith is the first line of s that holds sub, or "".
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
