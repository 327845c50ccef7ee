package watch

import (
	"math"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// Fit is a least-squares line through points: its slope per second and the
// slope's standard error. SE is 0 with fewer than three points (two points
// always fit exactly), and Span is the time the points cover.
type Fit struct {
	Slope, SE float64
	N         int
	Span      time.Duration
}

// LineFit fits ys over ts (in seconds). Fewer than two distinct times give
// a zero Fit. The standard error is the usual OLS one, which assumes
// independent residuals; successive RSS samples are not quite that, so
// comparisons also ask for an absolute floor and a minimum window.
func LineFit(ts, ys []float64) Fit {
	n := min(len(ts), len(ys))
	if n < 2 {
		return Fit{N: n}
	}
	var mt, my float64
	for i := range n {
		mt += ts[i]
		my += ys[i]
	}
	mt /= float64(n)
	my /= float64(n)
	// Centred sums keep precision when ts are large (hours of seconds).
	var sxy, sxx float64
	for i := range n {
		dt := ts[i] - mt
		sxy += dt * (ys[i] - my)
		sxx += dt * dt
	}
	f := Fit{N: n, Span: time.Duration((ts[n-1] - ts[0]) * float64(time.Second))}
	if sxx == 0 {
		return f
	}
	f.Slope = sxy / sxx
	if n > 2 {
		var sse float64
		for i := range n {
			r := ys[i] - my - f.Slope*(ts[i]-mt)
			sse += r * r
		}
		f.SE = math.Sqrt(sse / float64(n-2) / sxx)
	}
	return f
}

// fitOf fits the figure y of the samples over their times, skipping the
// samples y reports as unreadable.
func fitOf(samples []TimedSample, y func(Sample) (float64, bool)) Fit {
	ts := make([]float64, 0, len(samples))
	ys := make([]float64, 0, len(samples))
	for _, s := range samples {
		if v, ok := y(s.Sample); ok {
			ts = append(ts, s.T.Seconds())
			ys = append(ys, v)
		}
	}
	return LineFit(ts, ys)
}

func rssMB(s Sample) (float64, bool) { return s.RSSMB(), true }

func fds(s Sample) (float64, bool) { return float64(s.FDs), s.FDs >= 0 }

// addTrends puts the fitted trends of a step into st: RSS over the
// measured samples and over their tail, fds over the measured samples, each
// per minute with its standard error, the spread of CPU cores between
// samples, and the span the measured samples cover.
func addTrends(st *artifacts.TargetStats, all, measured []TimedSample, tailWindow time.Duration) {
	rss, tailFit, fd := fitOf(measured, rssMB), fitOf(tail(measured, tailWindow), rssMB), fitOf(measured, fds)
	st.RSSSlopeMBPerMin, st.RSSSlopeSE = rss.Slope*60, rss.SE*60
	st.RSSTailSlopeMBMin, st.RSSTailSlopeSE = tailFit.Slope*60, tailFit.SE*60
	st.FDsSlopePerMin, st.FDsSlopeSE = fd.Slope*60, fd.SE*60
	if rss.N > 2 {
		st.SpanS = rss.Span.Seconds()
	}
	st.CPUCoresSE = cpuCoresSE(all)
}

// cpuCoresSE is the standard error of the mean CPU cores, from the cores
// used between successive samples; 0 with fewer than three intervals.
func cpuCoresSE(samples []TimedSample) float64 {
	var cores []float64
	for i := 1; i < len(samples); i++ {
		if wall := (samples[i].T - samples[i-1].T).Seconds(); wall > 0 {
			cores = append(cores, max(0, samples[i].CPUSeconds-samples[i-1].CPUSeconds)/wall)
		}
	}
	n := len(cores)
	if n < 3 {
		return 0
	}
	var mean, ss float64
	for _, c := range cores {
		mean += c
	}
	mean /= float64(n)
	for _, c := range cores {
		ss += (c - mean) * (c - mean)
	}
	return math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
}

// StartBefore makes s, a sample taken before the step's load began, the
// start of st's RSS and fd ranges (the step's own samples begin once the
// load runs, when the load's connections are already open), and the fd
// growth per unit count from it.
func StartBefore(st *artifacts.TargetStats, s Sample, units int) {
	st.RSSMB.Start = s.RSSMB()
	st.RSSMB.Peak = max(st.RSSMB.Peak, st.RSSMB.Start)
	if s.FDs >= 0 {
		st.FDs.Start = float64(s.FDs)
		st.FDs.Peak = max(st.FDs.Peak, st.FDs.Start)
		st.FDsPerUnit = fdsPerUnit(st.FDs, units)
	}
}
