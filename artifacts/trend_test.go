package artifacts_test

import (
	"testing"
	"time"

	. "github.com/benchtui/benchtui/artifacts"
)

// trendStep is a step whose only figures are the target's: a slope of
// slope ± se MB/min (fds and CPU steady) over span seconds.
func trendStep(slope, se, span float64) Step {
	return Step{Label: "soak", Target: &TargetStats{RSSSlopeMBPerMin: slope, RSSSlopeSE: se,
		CPUCores: 0.4, CPUCoresSE: 0.01, SpanS: span}}
}

func TestTrendVerdicts(t *testing.T) {
	cases := []struct {
		name      string
		base, cur Step
		want      string
		notEnough bool
		opts      CompareOptions
	}{
		// The 10 s ping run of issue 20: 0.030 -> 3.46 MB/min was "worse, exit 1".
		{name: "short span", base: trendStep(0.03, 0.01, 10), cur: trendStep(3.46, 0.05, 10), want: Same, notEnough: true},
		{name: "one side short", base: trendStep(0.1, 0.05, 300), cur: trendStep(8, 0.1, 59), want: Same, notEnough: true},
		{name: "old artifacts, no span", base: trendStep(0.1, 0, 0), cur: trendStep(8, 0, 0), want: Same, notEnough: true},
		{name: "big rise, small SE", base: trendStep(0.6, 0.1, 300), cur: trendStep(6.5, 0.2, 300), want: Worse},
		{name: "big fall, small SE", base: trendStep(6.5, 0.2, 300), cur: trendStep(0.6, 0.1, 300), want: Better},
		{name: "big rise, huge SE", base: trendStep(0.6, 3, 300), cur: trendStep(6.5, 2, 300), want: Same},
		{name: "below the floor", base: trendStep(0.1, 0.01, 300), cur: trendStep(0.9, 0.01, 300), want: Same},
		{name: "floor raised", base: trendStep(0.6, 0.1, 300), cur: trendStep(6.5, 0.2, 300), want: Same,
			opts: CompareOptions{RSSSlopeFloor: 10}},
		{name: "window raised", base: trendStep(0.6, 0.1, 300), cur: trendStep(6.5, 0.2, 300), want: Same,
			notEnough: true, opts: CompareOptions{MinTrendWindow: 10 * time.Minute}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := compareSteps(tc.base, tc.cur, tc.opts)
			r := rowOf(t, c, MetricRSSSlope)
			if r.Verdict != tc.want || r.Test != TestTrend {
				t.Errorf("rss_slope %+v, want %s", r, tc.want)
			}
			if got := hasNote(r, "not enough data"); got != tc.notEnough {
				t.Errorf("not-enough-data footnote %v, want %v: %q", got, tc.notEnough, r.Notes)
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
