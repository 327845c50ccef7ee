package artifacts

import (
	"math"

	"github.com/aclements/go-moremath/stats"
)

// A slope fitted to a target's samples (RSS, fds) is tested on an error
// that allows for autocorrelation: the residuals of one run are not
// independent (a Go server's RSS follows its GC cycle and settles in a
// staircase of page faults), so the usual OLS error is far too small and a
// flat server would look like it leaks. Two bounds are kept, and a slope
// is judged on the tighter:
//
//   - a t-test for stationary noise: the fit (watch.LineFit) models the
//     residuals as AR(1) and keeps the effective number of independent
//     samples, NEff = N(1-ρ)/(1+ρ), as Santer et al. (2000) do for
//     climate trends; the test is on NEff-2 degrees of freedom, two runs'
//     slopes compared with Welch's t;
//   - the tilt for bounded disturbances (a sawtooth, a staircase): no
//     disturbance that stays within the residuals' range can tilt the
//     fitted slope by more than SlopeFit.Tilt, whatever its correlation;
//     a slope beyond its tilt (two runs: beyond the sum of theirs) is not
//     the disturbance's doing.

// SlopeFit says how a slope's standard error was estimated: from N
// samples whose residuals have lag-1 autocorrelation Rho (held within
// [0, 0.97]),
// leaving NEff effective samples. Nil in artifacts written before it was
// kept: their errors are OLS ones, tested against the normal quantile.
type SlopeFit struct {
	N    int     `json:"n"`
	Rho  float64 `json:"rho"`
	NEff float64 `json:"n_eff"`
	// Tilt, in the slope's unit, is the most a disturbance within the
	// residuals' range could tilt the slope; 0 when not kept.
	Tilt float64 `json:"tilt,omitempty"`
}

// TiltBound is f's tilt bound, +Inf when unknown (no fit, or none kept).
func (f *SlopeFit) TiltBound() float64 {
	if f == nil || f.Tilt <= 0 {
		return math.Inf(1)
	}
	return f.Tilt
}

// DOF is the slope's degrees of freedom, NEff-2; +Inf without a fit (an
// older artifact: the normal quantile).
func (f *SlopeFit) DOF() float64 {
	if f == nil {
		return math.Inf(1)
	}
	return f.NEff - 2
}

// Testable reports whether the fit leaves enough effective samples for a
// test (MinNEff); a fit of an older artifact always does.
func (f *SlopeFit) Testable() bool { return f == nil || f.NEff >= MinNEff }

// MinNEff is the fewest effective samples a slope is tested on: with
// fewer, a GC cycle as long as the run cannot be told from a trend.
const MinNEff = 3

// Critical is the two-sided 5% critical value of a t-test on a slope
// fitted so.
func (f *SlopeFit) Critical() float64 { return TCritical(f.DOF()) }

// TCritical is the upper 97.5% quantile of Student's t with df degrees of
// freedom (the normal one for +Inf).
func TCritical(df float64) float64 {
	if math.IsInf(df, 1) {
		return 1.959964
	}
	d := stats.TDist{V: max(df, 1)}
	lo, hi := 0.0, 1000.0
	for range 80 {
		if m := (lo + hi) / 2; d.CDF(m) < 0.975 {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// Leak floors: the least RSS growth that is worth a verdict, whatever the
// statistics say. A slope must also reach the RSS slope floor
// (DefaultRSSSlopeFloor).
const (
	// LeakGrowthMB is the least growth over the run, in MB.
	LeakGrowthMB = 5.0
	// LeakGrowthPct is the least growth over the run in percent of the
	// target's RSS at its start: 2% of a 1 GB server is 20 MB.
	LeakGrowthPct = 2.0
)

// DefaultRSSSlopeFloor, in MB/min, is the smallest RSS slope change
// worth a verdict: the soak policy's default leak threshold.
const DefaultRSSSlopeFloor = 1.0

// RSSSlopeFloor is the least RSS slope, in MB/min, that grows by the leak
// floors over spanS seconds from startMB, and at least perMin.
func RSSSlopeFloor(perMin, spanS, startMB float64) float64 {
	if spanS <= 0 {
		return math.Inf(1)
	}
	growth := max(LeakGrowthMB, LeakGrowthPct/100*startMB)
	return max(perMin, growth*60/spanS)
}

// RSSRising judges one run's RSS slope over its measured samples: rising
// when the slope is above zero beyond either bound — the two-sided 5%
// t-test (one-sided 2.5%: a warning shown on every run must rarely cry
// wolf), or the tilt — and above the leak floors (DefaultRSSSlopeFloor
// MB/min, and the larger of LeakGrowthMB and LeakGrowthPct of the start
// over the span). A fit with fewer than MinNEff effective samples is
// judged on its tilt alone.
func RSSRising(t *TargetStats) bool {
	if t == nil || t.RSSFit == nil || t.SpanS <= 0 {
		return false
	}
	slope, se, fit := t.RSSSlopeMBPerMin, t.RSSSlopeSE, t.RSSFit
	if slope < RSSSlopeFloor(DefaultRSSSlopeFloor, t.SpanS, t.RSSMB.Start) {
		return false
	}
	return slope > fit.TiltBound() || (fit.Testable() && (se == 0 || slope/se > fit.Critical()))
}
