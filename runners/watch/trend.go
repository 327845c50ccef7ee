package watch

import (
	"math"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// Fit is a least-squares line through points: its slope per second and
// the slope's standard error corrected for autocorrelated residuals, the
// number of points N, the residuals' lag-1 autocorrelation Rho and the
// effective number of independent points NEff it leaves, and the time the
// points cover. SE is 0 with fewer than three points (two points always
// fit exactly).
type Fit struct {
	Slope, SE float64
	N         int
	Rho, NEff float64
	// Tilt is the most a disturbance no larger than the residuals could
	// tilt the slope, whatever its correlation: max|residual|·Σ|t-t̄|/Σ(t-t̄)².
	Tilt float64
	Span time.Duration
}

// LineFit fits ys over ts (in seconds). Fewer than two distinct times give
// a zero Fit. Successive samples of a process are autocorrelated (a Go
// server's RSS follows its GC cycle), so the OLS error, which assumes
// independent residuals, would call a sawtooth a trend. The error is
// instead the one for AR(1) residuals of Santer et al. (2000): the lag-1
// autocorrelation r of the residuals (held within [0, 0.97]) leaves
// n(1-r)/(1+r) effective points, over which the residual variance is
// taken; artifacts tests the slope with a t-test on NEff-2 degrees of
// freedom.
func LineFit(ts, ys []float64) Fit {
	n := min(len(ts), len(ys))
	if n < 2 {
		return Fit{N: n, NEff: float64(n)}
	}
	mt, my := mean(ts[:n]), mean(ys[:n])
	// Centred sums keep precision when ts are large (hours of seconds).
	var sxy, sxx float64
	for i := range n {
		dt := ts[i] - mt
		sxy += dt * (ys[i] - my)
		sxx += dt * dt
	}
	f := Fit{N: n, NEff: float64(n), Span: time.Duration((ts[n-1] - ts[0]) * float64(time.Second))}
	if sxx == 0 {
		return f
	}
	f.Slope = sxy / sxx
	if n > 2 {
		res := make([]float64, n)
		for i := range n {
			res[i] = ys[i] - my - f.Slope*(ts[i]-mt)
		}
		f.Rho = lag1(res)
		f.NEff = float64(n) * (1 - f.Rho) / (1 + f.Rho)
		f.SE = math.Sqrt(sumSquares(res) / max(f.NEff-2, 1) / sxx)
		f.Tilt = maxAbs(res) * sumAbsDev(ts[:n], mt) / sxx
	}
	return f
}

func mean(xs []float64) float64 {
	var m float64
	for _, x := range xs {
		m += x
	}
	return m / float64(len(xs))
}

func maxAbs(xs []float64) float64 {
	var m float64
	for _, x := range xs {
		m = max(m, math.Abs(x))
	}
	return m
}

func sumAbsDev(xs []float64, m float64) float64 {
	var s float64
	for _, x := range xs {
		s += math.Abs(x - m)
	}
	return s
}

func sumSquares(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x * x
	}
	return s
}

// lag1 is the lag-1 autocorrelation of residuals res, held within [0,
// 0.97]: negative correlation is taken as none, and a near unit root still
// leaves a few effective points rather than none. It is not corrected for
// its small-sample bias (about -(1+3ρ)/n): corrected, the 30 s staircase
// of a flat server's RSS (page faults as its heap settles) left fewer
// than three effective samples, too few to judge the same server twice.
func lag1(res []float64) float64 {
	var num float64
	for i := 1; i < len(res); i++ {
		num += res[i] * res[i-1]
	}
	den := sumSquares(res)
	if den == 0 {
		return 0
	}
	r := num / den
	return min(max(r, 0), 0.97)
}

// slopeFit is how f's error was estimated, as an artifact keeps it; nil
// without an error (fewer than three points).
func (f Fit) slopeFit() *artifacts.SlopeFit {
	if f.N < 3 {
		return nil
	}
	return &artifacts.SlopeFit{N: f.N, Rho: math.Round(f.Rho*1000) / 1000, NEff: math.Round(f.NEff*100) / 100,
		Tilt: f.Tilt * 60}
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
	st.RSSSlopeMBPerMin, st.RSSSlopeSE, st.RSSFit = rss.Slope*60, rss.SE*60, rss.slopeFit()
	st.RSSTailSlopeMBMin, st.RSSTailSlopeSE = tailFit.Slope*60, tailFit.SE*60
	st.TailWindowS = tailFit.Span.Seconds()
	if tailWindow > 0 {
		st.TailWindowS = min(tailWindow, rss.Span).Seconds()
	}
	st.FDsSlopePerMin, st.FDsSlopeSE, st.FDsFit = fd.Slope*60, fd.SE*60, fd.slopeFit()
	if rss.N > 2 {
		st.SpanS = rss.Span.Seconds()
	}
	st.RSSRising = artifacts.RSSRising(st)
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
