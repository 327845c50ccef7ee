package artifacts_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	. "github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
)

// verdictOf returns the verdict of metric in c, failing when absent.
func verdictOf(tb testing.TB, c Comparison, metric string) string {
	tb.Helper()
	for _, r := range c.Rows {
		if r.Metric == metric {
			return r.Verdict
		}
	}
	tb.Fatalf("no %s row in %+v", metric, c.Rows)
	return ""
}

// trial compares a base against a current whose throughput is scaled by
// shift and whose latency is divided by it, 30 samples a side, 3% CV.
func trial(seed uint64, shift float64) Comparison {
	rng := rand.New(rand.NewPCG(seed, 99))
	base := artifactstest.Step(rng, artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: 0.03, Points: 30})
	cur := artifactstest.Step(rng, artifactstest.Spec{RPS: 1000 * shift, P50: 2 / shift, P99: 10 / shift, CV: 0.03, Points: 30})
	return Compare([]*Artifact{artifactstest.Artifact("G1", artifactstest.T0, base)},
		[]*Artifact{artifactstest.Artifact("G1", artifactstest.T0.Add(time.Hour), cur)}, CompareOptions{})
}

func TestCompareDetectsTenPercentShift(t *testing.T) {
	detected := map[string]int{}
	for seed := range uint64(100) {
		c := trial(seed, 0.9) // 10% less throughput, ~11% more latency
		for _, m := range []string{MetricThroughput, MetricP50, MetricP99} {
			if verdictOf(t, c, m) == Worse {
				detected[m]++
			}
		}
	}
	for _, m := range []string{MetricThroughput, MetricP50, MetricP99} {
		if detected[m] < 95 {
			t.Errorf("%s: 10%% shift judged worse in %d of 100 trials, want >= 95", m, detected[m])
		}
	}
}

func TestCompareSameDistributionIsSame(t *testing.T) {
	same := map[string]int{}
	for seed := range uint64(100) {
		c := trial(seed+1000, 1)
		for _, m := range []string{MetricThroughput, MetricP50, MetricP99} {
			if verdictOf(t, c, m) == Same {
				same[m]++
			}
		}
	}
	for m, n := range same {
		if n < 95 {
			t.Errorf("%s: one distribution judged same in %d of 100 trials, want >= 95", m, n)
		}
	}
}

func TestCompareTwiceAsSlowIsWorse(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	base := artifactstest.Artifact("G5", artifactstest.T0, artifactstest.Step(rng, artifactstest.Spec{Label: "concurrency=50", RPS: 5900, P50: 1.2, P99: 8, CV: 0.05}))
	slow := artifactstest.Artifact("G5", artifactstest.T0.Add(time.Hour), artifactstest.Step(rng, artifactstest.Spec{Label: "concurrency=50", RPS: 2950, P50: 2.4, P99: 16, CV: 0.05}))
	c := Compare([]*Artifact{base}, []*Artifact{slow}, CompareOptions{})
	if !c.Worse() {
		t.Fatalf("twice as slow not worse: %+v", c.Rows)
	}
	for _, m := range []string{MetricThroughput, MetricP50, MetricP90, MetricP99, MetricP999, MetricMax} {
		if v := verdictOf(t, c, m); v != Worse {
			t.Errorf("%s: verdict %s, want worse", m, v)
		}
	}
	if v := verdictOf(t, c, MetricErrorRate); v != Same {
		t.Errorf("error_rate: verdict %s, want same", v)
	}
	back := Compare([]*Artifact{slow}, []*Artifact{base}, CompareOptions{})
	if back.Worse() || verdictOf(t, back, MetricP99) != Better {
		t.Errorf("twice as fast not better: %+v", back.Rows)
	}
}

func TestCompareThresholdOverride(t *testing.T) {
	c := trial(3, 0.9)
	if verdictOf(t, c, MetricP99) != Worse {
		t.Fatal("10% shift should be worse at the default threshold")
	}
	rng := rand.New(rand.NewPCG(3, 99))
	base := artifactstest.Step(rng, artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: 0.03, Points: 30})
	cur := artifactstest.Step(rng, artifactstest.Spec{RPS: 900, P50: 2 / 0.9, P99: 10 / 0.9, CV: 0.03, Points: 30})
	c = Compare([]*Artifact{artifactstest.Artifact("G1", artifactstest.T0, base)}, []*Artifact{artifactstest.Artifact("G1", artifactstest.T0, cur)},
		CompareOptions{Threshold: map[string]float64{MetricP99: 20}})
	if verdictOf(t, c, MetricP99) != Same || verdictOf(t, c, MetricP50) != Worse {
		t.Errorf("p99=20%% should make p99 same and leave p50 worse: %+v", c.Rows)
	}
}

func TestCompareFewSamplesWarns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	base := artifactstest.Step(rng, artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: 0.03, Points: 3})
	cur := artifactstest.Step(rng, artifactstest.Spec{RPS: 500, P50: 4, P99: 20, CV: 0.03, Points: 3})
	c := Compare([]*Artifact{artifactstest.Artifact("G1", artifactstest.T0, base)}, []*Artifact{artifactstest.Artifact("G1", artifactstest.T0, cur)}, CompareOptions{})
	if c.Worse() {
		t.Errorf("3 samples a side must not give a verdict: %+v", c.Rows)
	}
	if !hasWarning(c, "too few per-interval samples") {
		t.Errorf("no too-few-samples warning: %q", c.Warnings)
	}
}

func TestCompareErrorsAppearAreWorse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	base := artifactstest.Step(rng, artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: 0.03})
	cur := artifactstest.Step(rng, artifactstest.Spec{RPS: 1000, P50: 2, P99: 10, CV: 0.03, Errors: 400})
	c := Compare([]*Artifact{artifactstest.Artifact("G1", artifactstest.T0, base)}, []*Artifact{artifactstest.Artifact("G1", artifactstest.T0, cur)}, CompareOptions{})
	if verdictOf(t, c, MetricErrorRate) != Worse {
		t.Errorf("0 -> 400 errors in 40k: %+v", c.Rows)
	}
	if !hasWarning(c, "current has 400 errors") {
		t.Errorf("no errors warning: %q", c.Warnings)
	}
}

func TestCompareWarnings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	mk := func() Step {
		return artifactstest.Step(rng, artifactstest.Spec{Label: "c=1", RPS: 1000, P50: 2, P99: 10, CV: 0.03, Target: true})
	}
	base := artifactstest.Artifact("G1", artifactstest.T0, mk())
	cur := artifactstest.Artifact("G1", artifactstest.T0, mk(), artifactstest.Step(rng, artifactstest.Spec{Label: "c=2", RPS: 1, P50: 1, P99: 1}))
	cur.Run.PlanSHA256, cur.Run.ToolVersion, cur.Run.Partial = "def456", "v0.2.0", true
	cur.Run.Host.CPUs = 8
	cur.Group.Config = map[string]any{"concurrency": 64}
	c := Compare([]*Artifact{base, artifactstest.Artifact("G9", artifactstest.T0)}, []*Artifact{cur, artifactstest.Artifact("G2", artifactstest.T0)}, CompareOptions{})
	for _, want := range []string{"plan sha256 differs", "group config differs", "host differs",
		"tool version differs", "current run is partial", "G1 c=2: only in current",
		"G2: only in current", "G9: only in base"} {
		if !hasWarning(c, want) {
			t.Errorf("no warning %q in %q", want, c.Warnings)
		}
	}
}

func hasWarning(c Comparison, part string) bool {
	for _, w := range c.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}
