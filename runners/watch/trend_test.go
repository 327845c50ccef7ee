package watch

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestLineFitTestHasItsSize: over many lines of 30 points with white noise
// and with AR(1) noise (ρ 0.8), the slope's t-test on its
// autocorrelation-corrected error rejects the true slope in 4.4% and
// 15.4% of them with this seed: the correction is exact for independent
// noise and liberal on short, strongly correlated runs (a Newey–West error
// with Andrews' bandwidth and fixed-b critical values rejected 32%; with
// Kendall's bias correction of ρ, 11%, but a flat real server's 30 s
// staircase of RSS then left too few effective samples to judge). The
// leak floors, not this test alone, keep false verdicts rare
// (leaktest_test.go). The mean error is within 20% of the slopes' spread
// for white noise, and within 25% at ρ 0.8.
func TestLineFitTestHasItsSize(t *testing.T) {
	t.Parallel()
	for _, rho := range []float64{0, 0.8} {
		rnd := rand.New(rand.NewPCG(1, 2))
		ts := make([]float64, 30)
		for i := range ts {
			ts[i] = float64(i)
		}
		const trials = 2000
		var slopes []float64
		var seSum float64
		rejected := 0
		for range trials {
			ys, e := make([]float64, len(ts)), 0.0
			for i, x := range ts {
				e = rho*e + math.Sqrt(1-rho*rho)*rnd.NormFloat64()*2
				ys[i] = 5 + 0.5*x + e
			}
			f := LineFit(ts, ys)
			slopes = append(slopes, f.Slope)
			seSum += f.SE
			if math.Abs(f.Slope-0.5)/f.SE > f.slopeFit().Critical() {
				rejected++
			}
		}
		spread, meanSE := stddev(slopes), seSum/trials
		t.Logf("ρ %.1f: rejected %d of %d, mean SE %.4f vs spread %.4f", rho, rejected, trials, meanSE, spread)
		if rejected < trials*2/100 || rejected > trials*17/100 || math.Abs(meanSE/spread-1) > 0.25 {
			t.Errorf("ρ %.1f: the true slope rejected in %d of %d, mean SE %.4f vs spread %.4f", rho, rejected, trials, meanSE, spread)
		}
	}
}

func stddev(xs []float64) float64 {
	var m, ss float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

func TestLineFitExactAndShort(t *testing.T) {
	if f := LineFit([]float64{0, 1, 2, 3}, []float64{1, 3, 5, 7}); f.Slope != 2 || f.SE != 0 || f.Span != 3*time.Second {
		t.Errorf("exact line: %+v", f)
	}
	if f := LineFit([]float64{0, 1}, []float64{0, 1}); f.Slope != 1 || f.SE != 0 {
		t.Errorf("two points: %+v, want slope 1 and no standard error", f)
	}
}

// TestAnalyzeTrendsAndSpan: a target leaking 1 MB/s with noise gets a
// slope near 60 MB/min, a standard error well below it, its span, and
// the spread of its CPU.
func TestAnalyzeTrendsAndSpan(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	var samples []TimedSample
	cpu := 0.0
	for i := range 61 {
		cpu += 0.4 + rnd.Float64()*0.2 // 0.4 to 0.6 cores a second
		mb := 100 + float64(i) + rnd.NormFloat64()
		samples = append(samples, TimedSample{T: time.Duration(i) * time.Second,
			Sample: Sample{RSSBytes: int64(mb * bytesPerMB), FDs: 10 + i/10, CPUSeconds: cpu}})
	}
	st := Analyze(samples, 0, 30*time.Second, 0)
	if math.Abs(st.RSSSlopeMBPerMin-60) > 3 || st.RSSSlopeSE <= 0 || st.RSSSlopeSE > 3 {
		t.Errorf("rss slope %.2f ± %.2f MB/min, want 60 with a small error", st.RSSSlopeMBPerMin, st.RSSSlopeSE)
	}
	if st.SpanS != 60 || st.FDsSlopePerMin < 5 || st.FDsSlopePerMin > 7 || st.FDsSlopeSE <= 0 {
		t.Errorf("span %.0fs, fds %.2f ± %.2f /min; want 60s and about 6/min", st.SpanS, st.FDsSlopePerMin, st.FDsSlopeSE)
	}
	// Uniform 0.4–0.6: sd 0.058, so the mean's error over 60 intervals is about 0.0075.
	if st.CPUCoresSE < 0.004 || st.CPUCoresSE > 0.012 {
		t.Errorf("cpu %.3f ± %.4f cores, want an error near 0.0075", st.CPUCores, st.CPUCoresSE)
	}
}
