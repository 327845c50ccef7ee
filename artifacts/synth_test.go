package artifacts

import (
	"math/rand/v2"
	"testing"
	"time"
)

// synth describes a synthetic step: its level and noise.
type synth struct {
	label       string
	rps         float64 // mean requests/s
	p50, p99    float64 // mean latency, ms
	cv          float64 // coefficient of variation of every sample
	points      int     // series length
	errors      int64
	target      bool // add target stats and RSS to the series
	rssSlopeMin float64
}

// synthStep builds a step whose summary figures are the means of its
// series, with normal noise of the given CV drawn from rng.
func synthStep(tb testing.TB, rng *rand.Rand, s synth) Step {
	tb.Helper()
	if s.points == 0 {
		s.points = 40
	}
	st := Step{Label: s.label, DurationS: float64(s.points), Errors: s.errors,
		Params: map[string]float64{}, ErrorKinds: map[string]int64{}}
	noisy := func(v float64) float64 { return v * (1 + s.cv*rng.NormFloat64()) }
	var sumRPS, sum50, sum99 float64
	for i := range s.points {
		p := Point{T: float64(i + 1), DT: 1, RPS: noisy(s.rps), P50MS: noisy(s.p50), P99MS: noisy(s.p99)}
		if s.target {
			p.RSSMB = 40 + s.rssSlopeMin*float64(i)/60
			p.FDs = 12
		}
		sumRPS, sum50, sum99 = sumRPS+p.RPS, sum50+p.P50MS, sum99+p.P99MS
		st.Series = append(st.Series, p)
	}
	n := float64(s.points)
	st.ThroughputRPS = sumRPS / n
	st.Requests = int64(sumRPS)
	st.LatencyMS = Percentiles{P50: sum50 / n, P90: (sum50 + sum99) / 2 / n, P99: sum99 / n,
		P999: 1.5 * sum99 / n, Max: 2 * sum99 / n, Mean: 1.1 * sum50 / n}
	st.ServiceMS = st.LatencyMS
	if s.target {
		end := 40 + s.rssSlopeMin*n/60
		st.Target = &TargetStats{RSSMB: Range{Start: 40, Peak: end, End: end},
			RSSSlopeMBPerMin: s.rssSlopeMin, RSSTailSlopeMBMin: s.rssSlopeMin / 2,
			FDs: Range{Start: 12, Peak: 14, End: 12}, FDsPerUnit: 1.4, CPUCores: 0.37}
	}
	return st
}

// synthArtifact wraps steps in an artifact of group id started at started.
func synthArtifact(id string, started time.Time, steps ...Step) *Artifact {
	return &Artifact{Schema: Schema,
		Run: Run{ID: id + "-run", Started: started, Finished: started.Add(time.Minute),
			Host: Host{OS: "linux", CPUs: 2, Go: "go1.26"}, ToolVersion: "v0.1.0", PlanSHA256: "abc123"},
		Group: Group{ID: id, Title: "Synthetic " + id, Runner: "http", Config: map[string]any{"concurrency": 50}},
		Steps: steps, Notes: []string{}}
}

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
