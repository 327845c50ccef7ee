// Package artifactstest builds synthetic artifacts for tests of the
// packages that compare, report or show them: steps with seeded, noisy
// independent samples (blocks of one run, or repetitions) whose summary
// figures are the samples' means, and a per-interval series for charts.
package artifactstest

import (
	"math/rand/v2"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// Spec describes a synthetic step: its level and noise.
type Spec struct {
	Label    string
	Params   map[string]float64
	RPS      float64 // mean requests/s
	P50, P99 float64 // mean latency, ms
	CV       float64 // coefficient of variation of every sample
	Points   int     // series length and step seconds; 40 when zero
	Errors   int64
	Dropped  int64
	// Runs > 0 makes the samples Runs repetitions; otherwise they are one
	// block of 1 s per point. NoSamples leaves them out, as in artifacts
	// written before samples.
	Runs      int
	NoSamples bool
	// Target adds target stats and an RSS series rising at RSSSlope MB/min,
	// fitted with standard error RSSSlopeSE (0.1 when zero) over SpanS
	// seconds (Points when zero).
	Target     bool
	RSSSlope   float64
	RSSSlopeSE float64
	SpanS      float64
}

// Step builds a step from spec, drawing normal noise from rng. Latency
// samples derive from P50 and P99: p90 their mean, p999 1.5 x p99, max
// 2 x p99, mean 1.1 x p50; error_rate samples scatter around
// Errors/Requests with the same CV.
func Step(rng *rand.Rand, spec Spec) artifacts.Step {
	if spec.Points == 0 {
		spec.Points = 40
	}
	st := artifacts.Step{Label: spec.Label, Params: spec.Params, DurationS: float64(spec.Points),
		Errors: spec.Errors, Dropped: spec.Dropped, ErrorKinds: map[string]int64{}}
	st.Requests = int64(spec.RPS * float64(spec.Points))
	sm := samples(rng, spec, float64(spec.Errors)/float64(max(st.Requests, 1)))
	st.Series = series(rng, spec)
	st.ThroughputRPS, st.OKRPS = mean(sm.Values[artifacts.SampleRPS]), mean(sm.Values[artifacts.SampleOKRPS])
	st.LatencyMS = artifacts.Percentiles{P50: mean(sm.Values[artifacts.SampleP50]),
		P90: mean(sm.Values[artifacts.SampleP90]), P99: mean(sm.Values[artifacts.SampleP99]),
		P999: mean(sm.Values[artifacts.SampleP999]), Max: mean(sm.Values[artifacts.SampleMax]),
		Mean: mean(sm.Values[artifacts.SampleMean])}
	st.ServiceMS = st.LatencyMS
	if !spec.NoSamples {
		st.Samples = sm
	}
	if spec.Target {
		st.Target = target(spec)
	}
	return st
}

// samples draws one value per sample of every figure.
func samples(rng *rand.Rand, spec Spec, errFrac float64) *artifacts.Samples {
	n, sm := spec.Points, &artifacts.Samples{Of: artifacts.SamplesOfBlocks, BlockS: 1, Values: map[string][]float64{}}
	if spec.Runs > 0 {
		n, sm.Of, sm.BlockS = spec.Runs, artifacts.SamplesOfRuns, 0
	}
	noisy := func(v float64) float64 { return max(v*(1+spec.CV*rng.NormFloat64()), 0) }
	levels := []struct {
		key string
		v   float64
	}{{artifacts.SampleRPS, spec.RPS}, {artifacts.SampleErrorRate, errFrac},
		{artifacts.SampleP50, spec.P50}, {artifacts.SampleP90, (spec.P50 + spec.P99) / 2},
		{artifacts.SampleP99, spec.P99}, {artifacts.SampleP999, 1.5 * spec.P99},
		{artifacts.SampleMax, 2 * spec.P99}, {artifacts.SampleMean, 1.1 * spec.P50}}
	for range n {
		for _, l := range levels {
			sm.Values[l.key] = append(sm.Values[l.key], noisy(l.v))
		}
		i := len(sm.Values[artifacts.SampleRPS]) - 1
		ok := sm.Values[artifacts.SampleRPS][i] * (1 - sm.Values[artifacts.SampleErrorRate][i])
		sm.Values[artifacts.SampleOKRPS] = append(sm.Values[artifacts.SampleOKRPS], ok)
	}
	return sm
}

// series draws the per-interval points, one second apart, that charts show.
func series(rng *rand.Rand, spec Spec) []artifacts.Point {
	noisy := func(v float64) float64 { return round(v * (1 + spec.CV*rng.NormFloat64())) }
	var out []artifacts.Point
	for i := range spec.Points {
		p := artifacts.Point{T: float64(i + 1), DT: 1, RPS: noisy(spec.RPS),
			P50MS: noisy(spec.P50), P99MS: noisy(spec.P99), InFlight: 50}
		if spec.Target {
			p.RSSMB = round(40 + spec.RSSSlope*float64(i+1)/60)
			p.FDs = 12
		}
		out = append(out, p)
	}
	return out
}

func target(spec Spec) *artifacts.TargetStats {
	se, span := spec.RSSSlopeSE, spec.SpanS
	if se == 0 {
		se = 0.1
	}
	if span == 0 {
		span = float64(spec.Points)
	}
	end := round(40 + spec.RSSSlope*float64(spec.Points)/60)
	// A sample a second, residuals correlated at ρ 0.5: a third of them
	// effective.
	fit := &artifacts.SlopeFit{N: int(span) + 1, Rho: 0.5, NEff: round((span + 1) / 3)}
	st := &artifacts.TargetStats{RSSMB: artifacts.Range{Start: 40, Peak: end, End: end},
		RSSSlopeMBPerMin: spec.RSSSlope, RSSSlopeSE: se, RSSFit: fit, RSSTailSlopeMBMin: round(spec.RSSSlope / 2),
		RSSTailSlopeSE: 2 * se, TailWindowS: min(span, 60), FDs: artifacts.Range{Start: 12, Peak: 14, End: 12},
		FDsSlopeSE: 0.05, FDsFit: fit, FDsPerUnit: 1.4, CPUCores: 0.37, CPUCoresSE: 0.01, SpanS: span}
	st.RSSRising = artifacts.RSSRising(st)
	return st
}

func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return round(sum / float64(max(len(xs), 1)))
}

// round keeps three decimals, so golden output does not hang on the last
// bits of a float.
func round(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// Artifact wraps steps in an artifact of group id whose run started at
// started, on a fixed host, tool version and plan.
func Artifact(id string, started time.Time, steps ...artifacts.Step) *artifacts.Artifact {
	return &artifacts.Artifact{Schema: artifacts.Schema,
		Run: artifacts.Run{ID: id + "-" + started.Format("150405"), Started: started,
			Finished: started.Add(time.Minute), Host: artifacts.Host{OS: "linux", CPUs: 2, Go: "go1.26"},
			ToolVersion: "v0.1.0", PlanSHA256: "abc123"},
		Group: artifacts.Group{ID: id, Title: "Synthetic " + id, Runner: "http",
			Config: map[string]any{"concurrency": 50}},
		Steps: steps, Notes: []string{}}
}

// T0 is a fixed run start for deterministic artifacts and file names.
var T0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
