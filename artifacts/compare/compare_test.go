package compare_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	. "github.com/benchtui/benchtui/artifacts/compare"
)

// rowOf returns the row of metric in c, failing when absent.
func rowOf(tb testing.TB, c Comparison, metric string) Row {
	tb.Helper()
	for _, r := range c.Rows {
		if r.Metric == metric {
			return r
		}
	}
	tb.Fatalf("no %s row in %+v", metric, c.Rows)
	return Row{}
}

func verdictOf(tb testing.TB, c Comparison, metric string) string {
	tb.Helper()
	return rowOf(tb, c, metric).Verdict
}

// compareSteps compares two one-step runs of group G1.
func compareSteps(b, c Step, opts CompareOptions) Comparison {
	return Compare([]*Artifact{artifactstest.Artifact("G1", artifactstest.T0, b)},
		[]*Artifact{artifactstest.Artifact("G1", artifactstest.T0.Add(time.Hour), c)}, opts)
}

// trialCV is the noise of the synthetic trials: repeated runs of one
// benchmark on a quiet machine scatter by 2-3% (benchstat's typical ± on a
// quiet machine); 3% is the harder end.
const trialCV = 0.03

// trial compares n repetitions a side: a base, and a current whose
// throughput is scaled by shift and whose latencies are divided by it.
func trial(seed uint64, shift float64, n int) Comparison {
	rng := rand.New(rand.NewPCG(seed, 99))
	base := artifactstest.Step(rng, artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: trialCV, Runs: n})
	cur := artifactstest.Step(rng, artifactstest.Spec{RPS: 1000 * shift, P50: 2 / shift, P99: 10 / shift, CV: trialCV, Runs: n})
	return compareSteps(base, cur, CompareOptions{})
}

var sampled = []string{MetricThroughput, MetricOKRPS, MetricP50, MetricP90, MetricP99, MetricP999, MetricMax}

// TestCompareDetectsTenPercentShift: a 10% shift, n=5+5, is judged worse
// in at least 90 of 100 trials; for the tail figures, whose minimum effect
// is larger (TailThresholdPct), a shift of twice that minimum is.
func TestCompareDetectsTenPercentShift(t *testing.T) {
	for _, m := range sampled {
		shift, what := 0.9, "10%"
		if tail := TailThresholdPct[m]; tail > 0 {
			shift, what = 1/(1+2*tail/100), fmt.Sprintf("%.0f%%", 2*tail)
		}
		detected := 0
		for seed := range uint64(100) {
			if verdictOf(t, trial(seed, shift, 5), m) == Worse { // n=5+5
				detected++
			}
		}
		t.Logf("%s: %s shift, n=5+5 runs, CV %.0f%%: detected in %d of 100", m, what, 100*trialCV, detected)
		if detected < 90 {
			t.Errorf("%s: %s shift judged worse in %d of 100 trials, want >= 90", m, what, detected)
		}
	}
}

// TestCompareSameDistributionIsSame checks the false-positive rate per
// metric (at least 95 of 100 trials same) and, as a user meets it, per
// trial: a trial is a false alarm when any of its rows is not same.
func TestCompareSameDistributionIsSame(t *testing.T) {
	for _, n := range []int{5, 10, 40} {
		perMetric, trials, significant := map[string]int{}, 0, 0
		for seed := range uint64(100) {
			c := trial(seed+1000, 1, n)
			for _, r := range c.Rows {
				if r.Verdict == Same {
					perMetric[r.Metric]++
				}
			}
			if !slices.ContainsFunc(c.Rows, func(r Row) bool { return r.Verdict != Same }) {
				trials++
			}
			if slices.ContainsFunc(c.Rows, func(r Row) bool { return r.P < DefaultAlpha }) {
				significant++
			}
		}
		t.Logf("n=%d+%d runs: same per metric %v; all rows same in %d of 100 trials (some row p < 0.05 in %d)",
			n, n, perMetric, trials, significant)
		for m, k := range perMetric {
			if k < 95 {
				t.Errorf("n=%d %s: one distribution judged same in %d of 100 trials, want >= 95", n, m, k)
			}
		}
		if trials < 90 {
			t.Errorf("n=%d: some row not same in %d of 100 trials, want <= 10", n, 100-trials)
		}
	}
}

func TestCompareTwiceAsSlowIsWorse(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	base := artifactstest.Step(rng, artifactstest.Spec{Label: "concurrency=50", RPS: 5900, P50: 1.2, P99: 8, CV: 0.05})
	slow := artifactstest.Step(rng, artifactstest.Spec{Label: "concurrency=50", RPS: 2950, P50: 2.4, P99: 16, CV: 0.05})
	c := compareSteps(base, slow, CompareOptions{})
	if !c.Worse() {
		t.Fatalf("twice as slow not worse: %+v", c.Rows)
	}
	for _, m := range sampled {
		if r := rowOf(t, c, m); r.Verdict != Worse || r.Test != TestMannWhitney || r.NBase != 40 || r.Samples != "blocks of 1s" {
			t.Errorf("%s: %+v, want worse on 40 blocks of 1s", m, r)
		}
	}
	if v := verdictOf(t, c, MetricErrorRate); v != Same {
		t.Errorf("error_rate: verdict %s, want same", v)
	}
	back := compareSteps(slow, base, CompareOptions{})
	if back.Worse() || verdictOf(t, back, MetricP99) != Better || verdictOf(t, back, MetricThroughput) != Better {
		t.Errorf("twice as fast not better: %+v", back.Rows)
	}
}

// TestCompareEachMetricOnItsOwnSamples moves only the p90 samples: only
// p90 may change its verdict.
func TestCompareEachMetricOnItsOwnSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	spec := artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: 0.02, Runs: 8}
	base, cur := artifactstest.Step(rng, spec), artifactstest.Step(rng, spec)
	for i := range cur.Samples.Values[SampleP90] {
		cur.Samples.Values[SampleP90][i] *= 1.5
	}
	c := compareSteps(base, cur, CompareOptions{})
	for _, r := range c.Rows {
		if want := map[bool]string{true: Worse, false: Same}[r.Metric == MetricP90]; r.Verdict != want {
			t.Errorf("%s: %s, want %s (p=%.3f)", r.Metric, r.Verdict, want, r.P)
		}
	}
}

func TestCompareThresholdOverride(t *testing.T) {
	c := trial(3, 0.9, 8)
	if verdictOf(t, c, MetricP99) != Worse {
		t.Fatal("10% shift should be worse at the default threshold")
	}
	rng := rand.New(rand.NewPCG(3, 99))
	base := artifactstest.Step(rng, artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: trialCV, Runs: 8})
	cur := artifactstest.Step(rng, artifactstest.Spec{RPS: 900, P50: 2 / 0.9, P99: 10 / 0.9, CV: trialCV, Runs: 8})
	c = compareSteps(base, cur, CompareOptions{Threshold: map[string]float64{MetricP99: 20}})
	if verdictOf(t, c, MetricP99) != Same || verdictOf(t, c, MetricP50) != Worse {
		t.Errorf("p99=20%% should make p99 same and leave p50 worse: %+v", c.Rows)
	}
}

// TestCompareTooFewSamples: at 3 runs a side the U-test cannot reach p <
// 0.05 whatever the data (benchmath says so), so even a 2x change is same,
// with benchmath's footnote.
func TestCompareTooFewSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	base := artifactstest.Step(rng, artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: 0.03, Runs: 3})
	cur := artifactstest.Step(rng, artifactstest.Spec{RPS: 500, P50: 4, P99: 20, CV: 0.03, Runs: 3})
	c := compareSteps(base, cur, CompareOptions{})
	if c.Worse() {
		t.Errorf("3 samples a side must not give a verdict: %+v", c.Rows)
	}
	r := rowOf(t, c, MetricP99)
	if !hasNote(r, "need >= 4 samples to detect a difference") || r.DeltaPct < 90 {
		t.Errorf("p99 row %+v: want a 2x delta and benchmath's too-few-samples footnote", r)
	}
	if !slices.Contains(c.Footnotes(), r.Notes[0]) {
		t.Errorf("footnotes %q lack the row's notes", c.Footnotes())
	}
}

// TestCompareWithoutSamples: artifacts written before samples give no
// verdict at all, never one from their series.
func TestCompareWithoutSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	base := artifactstest.Step(rng, artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: 0.03, NoSamples: true})
	cur := artifactstest.Step(rng, artifactstest.Spec{RPS: 500, P50: 4, P99: 20, CV: 0.03})
	c := compareSteps(base, cur, CompareOptions{})
	for _, r := range c.Rows {
		if r.Verdict != Same || (r.Metric == MetricP99 && (!hasNote(r, NoteNoSamples) || r.Base != base.LatencyMS.P99)) {
			t.Errorf("%s: %+v, want same on the summary figures with the no-samples footnote", r.Metric, r)
		}
	}
}

func TestCompareErrorsAppearAreWorse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	base := artifactstest.Step(rng, artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: 0.03})
	cur := artifactstest.Step(rng, artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: 0.03, Errors: 400})
	c := compareSteps(base, cur, CompareOptions{})
	if verdictOf(t, c, MetricErrorRate) != Worse || verdictOf(t, c, MetricOKRPS) != Same {
		t.Errorf("0 -> 400 errors in 40k: %+v", c.Rows)
	}
	if !hasWarning(c, "current has 400 errors") {
		t.Errorf("no errors warning: %q", c.Warnings)
	}
	if r := rowOf(t, compareSteps(base, base, CompareOptions{}), MetricErrorRate); r.Verdict != Same || len(r.Notes) != 0 {
		t.Errorf("no errors on either side: %+v, want same without a footnote", r)
	}
}

func TestCompareWarnings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	mk := func(runs int) Step {
		return artifactstest.Step(rng, artifactstest.Spec{Label: "c=1", RPS: 1000, P50: 2, P99: 10, CV: 0.03, Target: true, Runs: runs})
	}
	base := artifactstest.Artifact("G1", artifactstest.T0, mk(0))
	cur := artifactstest.Artifact("G1", artifactstest.T0, mk(5), artifactstest.Step(rng, artifactstest.Spec{Label: "c=2", RPS: 1, P50: 1, P99: 1}))
	cur.Run.PlanSHA256, cur.Run.ToolVersion, cur.Run.Partial = "def456", "v0.2.0", true
	cur.Run.Host.CPUs = 8
	cur.Group.Config = map[string]any{"concurrency": 64}
	c := Compare([]*Artifact{base, artifactstest.Artifact("G9", artifactstest.T0)}, []*Artifact{cur, artifactstest.Artifact("G2", artifactstest.T0)}, CompareOptions{})
	for _, want := range []string{"plan sha256 differs", "group config differs", "host differs",
		"tool version differs", "current run is partial", "G1 c=2: only in current",
		"G2: only in current", "G9: only in base", "samples differ in kind (base blocks of 1s, current runs)"} {
		if !hasWarning(c, want) {
			t.Errorf("no warning %q in %q", want, c.Warnings)
		}
	}
	if r := rowOf(t, c, MetricP50); r.Samples != "blocks of 1s vs runs" {
		t.Errorf("samples %q", r.Samples)
	}
}

// TestConfigComparedAsWritten: two runs of one plan whose expanded configs
// differ only by a port do not warn; a written difference does.
func TestConfigComparedAsWritten(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	step := artifactstest.Step(rng, artifactstest.Spec{Label: "c=1", RPS: 1000, P50: 2, P99: 10, CV: 0.03})
	base, cur := artifactstest.Artifact("G1", artifactstest.T0, step), artifactstest.Artifact("G1", artifactstest.T0, step)
	written := map[string]any{"url": "http://${ADDR}/ping"}
	base.Group.Config, base.Group.ConfigAsWritten = map[string]any{"url": "http://127.0.0.1:40001/ping"}, written
	cur.Group.Config, cur.Group.ConfigAsWritten = map[string]any{"url": "http://127.0.0.1:40002/ping"}, written
	if c := Compare([]*Artifact{base}, []*Artifact{cur}, CompareOptions{}); hasWarning(c, "group config differs") {
		t.Errorf("same written config warned: %q", c.Warnings)
	}
	cur.Group.ConfigAsWritten = map[string]any{"url": "http://${ADDR}/work"}
	if c := Compare([]*Artifact{base}, []*Artifact{cur}, CompareOptions{}); !hasWarning(c, "group config differs") {
		t.Errorf("a written difference did not warn: %q", c.Warnings)
	}
}

func TestGeomeanRows(t *testing.T) {
	base, cur := artifactstest.FixtureRuns()
	c := Compare(base, cur, CompareOptions{})
	if len(c.Geomean) != len(sampled) {
		t.Fatalf("%d geomean rows, want one per latency and throughput metric: %+v", len(c.Geomean), c.Geomean)
	}
	for _, g := range c.Geomean {
		var logB float64
		n := 0
		for _, r := range c.Rows {
			if r.Metric == g.Metric {
				logB, n = logB+math.Log(r.Base), n+1
			}
		}
		if g.NBase != n || math.Abs(g.Base-math.Exp(logB/float64(n))) > 1e-9 || g.Verdict != Same {
			t.Errorf("%s geomean %+v over %d rows", g.Metric, g, n)
		}
	}
	if one := trial(1, 1, 5); len(one.Geomean) != 0 {
		t.Errorf("one step needs no geomean: %+v", one.Geomean)
	}
}

func hasWarning(c Comparison, part string) bool {
	return slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, part) })
}

func hasNote(r Row, part string) bool {
	return slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, part) })
}

// TestOnlyKeepsOneMetric: Only keeps the rows of one metric, its named
// requests' and targets' rows too, and the warnings; Worse then judges
// those rows alone.
func TestOnlyKeepsOneMetric(t *testing.T) {
	c := Comparison{Rows: []Row{
		{Metric: "p99", Verdict: Same}, {Metric: "p99[login]", Verdict: Worse},
		{Metric: "p999", Verdict: Worse}, {Metric: "rss_slope", Verdict: Worse},
	}, Geomean: []Row{{Metric: "p99"}}, Warnings: []string{"w"}}
	got := c.Only("p99")
	if len(got.Rows) != 2 || got.Rows[1].Metric != "p99[login]" || got.Geomean != nil || len(got.Warnings) != 1 || !got.Worse() {
		t.Errorf("Only(p99) = %+v", got)
	}
	if c.Only("throughput_rps").Worse() || len(c.Only("rss_slope").Rows) != 1 {
		t.Errorf("Only judged rows of other metrics: %+v", c.Only("throughput_rps"))
	}
}
