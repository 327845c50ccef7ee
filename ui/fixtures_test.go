package ui

import (
	"math"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/httpload"
	"github.com/benchtui/benchtui/runners/plan"
)

// t0 is the fixed clock of the fixtures.
var t0 = time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)

// testRegistry knows the http kind, for sessions.
var testRegistry = runners.MustRegistry(httpload.Kind())

func pdur(d time.Duration) plan.Duration { return plan.Duration{Duration: d} }

// testPlan is a plan of four groups, two of them on a target with a build
// command; nothing in it is ever run.
func testPlan() *plan.Plan {
	soak := &plan.Soak{ExtendWhileRSSRising: &plan.RSSRule{SlopeMBPerMin: 1, Step: pdur(60 * time.Second), Max: pdur(540 * time.Second)}}
	return &plan.Plan{
		Path: "bench.yaml", Version: 1,
		Targets: map[string]*plan.TargetSpec{
			"api": {Command: []string{"./bin/server"}, Build: []string{"true"}},
		},
		Groups: []*plan.Group{
			{ID: "G1", Title: "Ping closed loop", Target: "api", Runner: "http",
				Load: plan.Load{Concurrency: 8}, Warmup: pdur(time.Second), Duration: pdur(30 * time.Second)},
			{ID: "G5", Title: "Sustained baseline + memory", Target: "api", Runner: "http",
				Load: plan.Load{Concurrency: 50}, Duration: pdur(300 * time.Second), Soak: soak},
			{ID: "sweep", Title: "Concurrency sweep", Runner: "http",
				Sweep: map[string][]float64{"concurrency": {1, 4, 16}}, Duration: pdur(4 * time.Second)},
			{ID: "pg-claim-skip", Title: "Job claims, SKIP LOCKED", Runner: "postgres", Duration: pdur(20 * time.Second)},
		},
	}
}

// series is n deterministic one-second points: a wave with a spike at
// two thirds, RSS climbing by rssStep a second.
func series(n int, rps, p50 float64, rssStep float64) []artifacts.Point {
	pts := make([]artifacts.Point, n)
	for i := range pts {
		wave := math.Sin(float64(i) / 3)
		p := artifacts.Point{T: float64(i + 1), DT: 1, RPS: math.Round(rps + rps/20*wave),
			P50MS: round2(p50 + p50/10*wave), P99MS: round2(p50*6 + p50*wave), InFlight: 8,
			RSSMB: round2(40 + rssStep*float64(i)), FDs: float64(60 + i%3)}
		if i == 2*n/3 {
			p.P99MS *= 3
		}
		pts[i] = p
	}
	return pts
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// runningSnapshot is G1 half way through its measured phase.
func runningSnapshot(state engine.State, rising bool) engine.Snapshot {
	pts := series(15, 5900, 1.2, 0.11)
	return engine.Snapshot{
		GroupID: "G1", State: state, Phase: engine.PhaseMeasure, Step: 1, Steps: 1, StepLabel: "concurrency=8", Label: "concurrency=8",
		Elapsed: 15 * time.Second, Planned: 30 * time.Second, Paused: 4 * time.Second,
		Interval: engine.Stats{Requests: 1475, RPS: 5900, P50: 1.21, P90: 3.02, P99: 8.4, Max: 21.7},
		Total:    engine.Stats{Requests: 88500, Errors: 3, RPS: 5912.4, P50: 1.2, P90: 3.1, P99: 8.1, Max: 46},
		InFlight: 8, Target: &engine.ProcSample{RSSMB: 41.6, FDs: 61}, TargetName: "api",
		Self:   &engine.ProcSample{RSSMB: 30.2, FDs: 12},
		RSS:    engine.RSSTrend{Slope: 6.52, SE: 0.31, SpanS: 15, Rising: rising, Tail: 6.52, TailWindowS: 15, TailAbove: rising},
		Series: pts,
	}
}

// artifact is a finished G1 run of one step.
func artifact(started time.Time, rps, p50 float64) *artifacts.Artifact {
	pts := series(30, rps, p50, 0.01)
	return &artifacts.Artifact{
		Schema: artifacts.Schema,
		Run:    artifacts.Run{ID: "run-" + started.Format("150405"), Started: started, Finished: started.Add(31 * time.Second)},
		Group:  artifacts.Group{ID: "G1", Title: "Ping closed loop", Runner: "http"},
		Steps: []artifacts.Step{{
			Label: "concurrency=8", DurationS: 30, Requests: int64(rps * 30), ThroughputRPS: rps,
			LatencyMS: artifacts.Percentiles{P50: p50, P90: p50 * 2.5, P99: p50 * 6.5, Max: p50 * 30},
			Series:    pts, Samples: blockSamples(pts),
		}},
	}
}

// blockSamples are one-second block samples matching the points, as the
// engine writes them: comparisons judge these, never the series.
func blockSamples(pts []artifacts.Point) *artifacts.Samples {
	v := map[string][]float64{}
	for _, p := range pts {
		for k, x := range map[string]float64{artifacts.SampleRPS: p.RPS, artifacts.SampleP50: p.P50MS,
			artifacts.SampleP90: round2(p.P50MS * 2.5), artifacts.SampleP99: p.P99MS, artifacts.SampleMax: round2(p.P99MS * 4.6)} {
			v[k] = append(v[k], x)
		}
	}
	return &artifacts.Samples{Of: artifacts.SamplesOfBlocks, BlockS: 1, Values: v}
}

// newTestModel is a console on testPlan at w x h, with no engine.
func newTestModel(t *testing.T, w, h int) *Model {
	t.Helper()
	m := New(Config{Plan: testPlan(), Dir: "bench-results", Started: t0})
	m.Update(sizeMsg(w, h))
	return m
}

// testSession is a session of G1 that is never started.
func testSession(t testing.TB, m *Model) *engine.Session {
	t.Helper()
	s, err := engine.NewSession(testRegistry, m.cfg.Plan, m.cfg.Plan.Groups[0], engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
