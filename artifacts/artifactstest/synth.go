// Package artifactstest builds synthetic artifacts for tests of the
// packages that compare, report or show them: steps with a seeded, noisy
// per-interval series whose summary figures are the series' means.
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
	Points   int     // series length; 40 when zero
	Errors   int64
	Dropped  int64
	// Target adds target stats and an RSS series rising at RSSSlope MB/min.
	Target   bool
	RSSSlope float64
}

// Step builds a step from spec, drawing normal noise from rng. Points are
// one second apart; latency summaries derive from the series means (p90 the
// mean of p50 and p99, p999 1.5 x p99, max 2 x p99).
func Step(rng *rand.Rand, spec Spec) artifacts.Step {
	if spec.Points == 0 {
		spec.Points = 40
	}
	st := artifacts.Step{Label: spec.Label, Params: spec.Params, DurationS: float64(spec.Points),
		Errors: spec.Errors, Dropped: spec.Dropped, ErrorKinds: map[string]int64{}}
	noisy := func(v float64) float64 { return v * (1 + spec.CV*rng.NormFloat64()) }
	var sumRPS, sum50, sum99 float64
	for i := range spec.Points {
		p := artifacts.Point{T: float64(i + 1), DT: 1, RPS: noisy(spec.RPS),
			P50MS: noisy(spec.P50), P99MS: noisy(spec.P99), InFlight: 50}
		if spec.Target {
			p.RSSMB = 40 + spec.RSSSlope*float64(i+1)/60
			p.FDs = 12
		}
		sumRPS, sum50, sum99 = sumRPS+p.RPS, sum50+p.P50MS, sum99+p.P99MS
		st.Series = append(st.Series, p)
	}
	n := float64(spec.Points)
	st.ThroughputRPS = round(sumRPS / n)
	st.Requests = int64(sumRPS)
	p50, p99 := round(sum50/n), round(sum99/n)
	st.LatencyMS = artifacts.Percentiles{P50: p50, P90: round((p50 + p99) / 2), P99: p99,
		P999: round(1.5 * p99), Max: round(2 * p99), Mean: round(1.1 * p50)}
	st.ServiceMS = st.LatencyMS
	if spec.Target {
		end := round(40 + spec.RSSSlope*n/60)
		st.Target = &artifacts.TargetStats{RSSMB: artifacts.Range{Start: 40, Peak: end, End: end},
			RSSSlopeMBPerMin: spec.RSSSlope, RSSTailSlopeMBMin: round(spec.RSSSlope / 2),
			FDs: artifacts.Range{Start: 12, Peak: 14, End: 12}, FDsPerUnit: 1.4, CPUCores: 0.37}
	}
	return st
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
