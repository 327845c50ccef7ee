package artifactstest

import (
	"math/rand/v2"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// FixtureRuns returns a base and a current run of three groups, the same
// on every call (seeded): a sweep G1 of 6 repetitions whose 16-worker step
// got slower, a two-minute soak G5 (blocks of 1 s) whose RSS climbs faster
// and that now has errors, and G7, only in the base. The compare and
// report tests judge and render them (their goldens hang on these bytes);
// the artifacts tests validate them against the schema.
func FixtureRuns() (base, current []*artifacts.Artifact) {
	rng := rand.New(rand.NewPCG(1, 42))
	sweep := func(p99At16 float64) []artifacts.Step {
		var steps []artifacts.Step
		for _, n := range []float64{1, 4, 16} {
			p99 := 2 + n/2
			if n == 16 {
				p99 = p99At16
			}
			steps = append(steps, Step(rng, Spec{
				Label: "concurrency=" + artifacts.FormatNumber(n), Params: map[string]float64{"concurrency": n},
				RPS: 500 * n / (1 + n/8), P50: 1 + n/4, P99: p99, CV: 0.03, Runs: 6}))
		}
		return steps
	}
	soak := func(slope, se float64, errs int64) artifacts.Step {
		return Step(rng, Spec{Label: "concurrency=50",
			Params: map[string]float64{"concurrency": 50}, RPS: 5900, P50: 1.2, P99: 8.1,
			CV: 0.05, Errors: errs, Target: true, RSSSlope: slope, RSSSlopeSE: se, SpanS: 120})
	}
	t1 := T0.Add(24 * time.Hour)
	base = []*artifacts.Artifact{
		Artifact("G1", T0, sweep(10)...),
		Artifact("G5", T0, soak(0.6, 0.1, 0)),
		Artifact("G7", T0, Step(rng, Spec{RPS: 80, P50: 5, P99: 9, CV: 0.05})),
	}
	current = []*artifacts.Artifact{
		Artifact("G1", t1, sweep(20)...),
		Artifact("G5", t1, soak(6.5, 0.2, 40)),
	}
	current[1].Run.ToolVersion = "v0.2.0"
	return base, current
}
