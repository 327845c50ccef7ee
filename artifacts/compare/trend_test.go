package compare_test

import (
	"testing"

	. "github.com/benchtui/benchtui/artifacts"
	. "github.com/benchtui/benchtui/artifacts/compare"
)

// trendStep is a step whose only figures are the target's: a slope of
// slope ± se MB/min (fds and CPU steady) over span seconds, fitted on a
// sample a second with neff effective samples (no fit, as in older
// artifacts, when neff is 0).
func trendStep(slope, se, span, neff float64) Step {
	st := &TargetStats{RSSSlopeMBPerMin: slope, RSSSlopeSE: se, RSSMB: Range{Start: 50},
		CPUCores: 0.4, CPUCoresSE: 0.01, SpanS: span}
	if neff > 0 {
		st.RSSFit = &SlopeFit{N: int(span) + 1, NEff: neff, Rho: 0.5}
	}
	return Step{Label: "soak", Target: st}
}

func TestTrendVerdicts(t *testing.T) {
	cases := []struct {
		name      string
		base, cur Step
		want      string
		untested  string // a word of the footnote of an untested row
		opts      CompareOptions
	}{
		// The 10 s ping run of issue 20: 0.030 -> 3.46 MB/min was "worse,
		// exit 1"; 0.6 MB grown in 10 s is below the leak floor of 2 MB.
		{name: "short span, small growth", base: trendStep(0.03, 0.01, 10, 2), cur: trendStep(3.46, 0.05, 10, 2), want: Same,
			untested: "too correlated"},
		{name: "short span, small growth, testable", base: trendStep(0.03, 0.01, 10, 6), cur: trendStep(3.46, 0.05, 10, 6), want: Same},
		// Issue 28: a flat 30 s run against a leaking 59 s one was ~ for
		// want of 60 s on both sides.
		{name: "leak between short runs", base: trendStep(4.32, 1.5, 29, 8), cur: trendStep(129.21, 6, 59, 15), want: Worse},
		{name: "one side short", base: trendStep(0.1, 0.05, 300, 100), cur: trendStep(8, 0.1, 59, 20), want: Worse},
		{name: "old artifacts, no span", base: trendStep(0.1, 0, 0, 0), cur: trendStep(8, 0, 0, 0), want: Same,
			untested: "no target samples"},
		{name: "old artifacts, span", base: trendStep(0.6, 0.1, 300, 0), cur: trendStep(6.5, 0.2, 300, 0), want: Worse},
		{name: "big rise, small SE", base: trendStep(0.6, 0.1, 300, 100), cur: trendStep(6.5, 0.2, 300, 100), want: Worse},
		{name: "big fall, small SE", base: trendStep(6.5, 0.2, 300, 100), cur: trendStep(0.6, 0.1, 300, 100), want: Better},
		{name: "big rise, huge SE", base: trendStep(0.6, 3, 300, 100), cur: trendStep(6.5, 2, 300, 100), want: Same,
			untested: "cannot be told from noise"},
		{name: "below the floor", base: trendStep(0.1, 0.01, 300, 100), cur: trendStep(0.9, 0.01, 300, 100), want: Same},
		{name: "floor raised", base: trendStep(0.6, 0.1, 300, 100), cur: trendStep(6.5, 0.2, 300, 100), want: Same,
			opts: CompareOptions{RSSSlopeFloor: 10}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := compareSteps(tc.base, tc.cur, tc.opts)
			r := rowOf(t, c, MetricRSSSlope)
			if r.Verdict != tc.want || r.Test != TestTrend {
				t.Errorf("rss_slope %+v, want %s", r, tc.want)
			}
			if r.Untested != (tc.untested != "") || (tc.untested != "" && !hasNote(r, tc.untested)) {
				t.Errorf("untested %v with notes %q, want untested %v (%q)", r.Untested, r.Notes, tc.untested != "", tc.untested)
			}
			if r.Untested && !hasNote(r, "no target samples") && !hasNote(r, "s on both sides would do") {
				t.Errorf("an untested slope must say how long would do: %q", r.Notes)
			}
			if tc.want != Worse && c.Worse() {
				t.Errorf("a comparison without a worse trend must not fail: %+v", c.Rows)
			}
		})
	}
}

// TestCPUTrend: CPU is a level, judged by its standard errors, the floor of
// 0.05 cores and the minimum effect in percent; a sign flip within the
// noise (issue 20 saw -168%) is same.
func TestCPUTrend(t *testing.T) {
	cpu := func(v, se float64) Step {
		return Step{Label: "soak", Target: &TargetStats{CPUCores: v, CPUCoresSE: se, SpanS: 120}}
	}
	for _, tc := range []struct {
		base, cur Step
		want      string
	}{
		{cpu(0.37, 0.01), cpu(0.74, 0.02), Worse},
		{cpu(0.37, 0.01), cpu(0.20, 0.02), Better},
		{cpu(0.05, 0.2), cpu(-0.03, 0.2), Same},    // noise around zero
		{cpu(0.37, 0.001), cpu(0.40, 0.001), Same}, // significant, below 0.05 cores
		{cpu(4.0, 0.001), cpu(4.1, 0.001), Same},   // above the floor, below 5%
	} {
		if r := rowOf(t, compareSteps(tc.base, tc.cur, CompareOptions{}), MetricCPU); r.Verdict != tc.want {
			t.Errorf("cpu %.2f±%.3f -> %.2f±%.3f: %s, want %s", r.Base, r.BaseSE, r.Current, r.CurrentSE, r.Verdict, tc.want)
		}
	}
}

func TestFDsSlopeTrend(t *testing.T) {
	fds := func(v, se float64) Step {
		return Step{Label: "soak", Target: &TargetStats{FDsSlopePerMin: v, FDsSlopeSE: se, SpanS: 600}}
	}
	if r := rowOf(t, compareSteps(fds(0, 0.1), fds(12, 0.5), CompareOptions{}), MetricFDsSlope); r.Verdict != Worse {
		t.Errorf("fds 0 -> 12/min: %+v, want worse", r)
	}
	if r := rowOf(t, compareSteps(fds(0, 0.1), fds(0.6, 0.05), CompareOptions{}), MetricFDsSlope); r.Verdict != Same {
		t.Errorf("fds 0 -> 0.6/min, below the 1 fd/min floor: %+v, want same", r)
	}
}
