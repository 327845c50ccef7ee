package ui

import (
	"strings"
	"testing"

	artcompare "github.com/benchtui/benchtui/artifacts/compare"
)

// TestCompareLineSaysHowSure: an untested row reads "?" with its reason, a
// slope's delta is absolute, a named request's row keeps the columns, and
// a judged row says what it rests on.
func TestCompareLineSaysHowSure(t *testing.T) {
	m := newTestModel(t, 120, 36)
	rows := []artcompare.Row{
		{Metric: "p99[login]", Base: 264, Current: 270, DeltaPct: 2.3, Verdict: artcompare.Same, Untested: true,
			Test: artcompare.TestNone, Notes: []string{"no p99 samples"}},
		{Metric: artcompare.MetricRSSSlope, Base: 4.32, Current: 129.21, DeltaPct: 2890, Verdict: artcompare.Worse,
			Test: artcompare.TestTrend, P: 0, NBase: 30, NCurrent: 59, BaseSpanS: 29, CurrentSpanS: 59},
	}
	untested := m.st.compareLine(paneRow{rows[0], true}, 100)
	slope := m.st.compareLine(paneRow{rows[1], true}, 100)
	for _, want := range []string{"p99 ms[log", " ?", "no p99 samples"} {
		if !strings.Contains(untested, want) {
			t.Errorf("untested row %q has no %q", untested, want)
		}
	}
	for _, want := range []string{"+124.89", "worse", "fit · p=0.000 n=30+59 spans 29+59 s"} {
		if !strings.Contains(slope, want) {
			t.Errorf("slope row %q has no %q", slope, want)
		}
	}
	if strings.Contains(slope, "%") {
		t.Errorf("slope row %q gives its delta in percent", slope)
	}
	if i, j := strings.Index(untested, "270"), strings.Index(slope, "129"); len1(untested[:i]) != len1(slope[:j]) {
		t.Errorf("columns differ: %q / %q", untested, slope)
	}
}
