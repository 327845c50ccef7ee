package artifacts

import (
	"fmt"
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

// tilt is f's tilt bound, +Inf when unknown (no fit, or none kept).
func (f *SlopeFit) tilt() float64 {
	if f == nil || f.Tilt <= 0 {
		return math.Inf(1)
	}
	return f.Tilt
}

// dof is the slope's degrees of freedom, NEff-2; +Inf without a fit (an
// older artifact: the normal quantile).
func (f *SlopeFit) dof() float64 {
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
func (f *SlopeFit) Critical() float64 { return tCritical(f.dof()) }

// tCritical is the upper 97.5% quantile of Student's t with df degrees of
// freedom (the normal one for +Inf).
func tCritical(df float64) float64 {
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

// tP is the two-sided p-value of t on df degrees of freedom.
func tP(t, df float64) float64 {
	if math.IsInf(df, 1) {
		return 2 * (1 - stats.StdNormal.CDF(math.Abs(t)))
	}
	return 2 * (1 - stats.TDist{V: max(df, 1)}.CDF(math.Abs(t)))
}

// welchDOF is the Welch–Satterthwaite degrees of freedom of a difference
// of two estimates with standard errors a and b on da and db degrees.
func welchDOF(a, da, b, db float64) float64 {
	a2, b2 := a*a, b*b
	den := a2*a2/da + b2*b2/db
	if den == 0 {
		return math.Min(da, db)
	}
	return (a2 + b2) * (a2 + b2) / den
}

// zPower80 is the normal quantile of 80% power: an effect of
// (c + zPower80)·SE is found about four times in five at critical value c.
const zPower80 = 0.8416

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

// rssSlopeFloor is the least RSS slope, in MB/min, that grows by the leak
// floors over spanS seconds from startMB, and at least perMin.
func rssSlopeFloor(perMin, spanS, startMB float64) float64 {
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
	if slope < rssSlopeFloor(DefaultRSSSlopeFloor, t.SpanS, t.RSSMB.Start) {
		return false
	}
	return slope > fit.tilt() || (fit.Testable() && (se == 0 || slope/se > fit.Critical()))
}

// judgeSlope judges the change of a slope between two runs: worse or
// better when the difference passes the two-sided 5% Welch t-test on the
// two autocorrelation-corrected errors, or exceeds the two runs' tilts
// together, and reaches the metric's floor (for RSS, also the leak floors
// over the current run). A difference that is not significant is same
// when either bound could have seen a change at the floor (the t-test at
// 80% power), and untested, with how long the runs would need to be, when
// neither could.
func judgeSlope(row *Row, m metricDef, bt, ct trendFigure, cur *TargetStats, opts CompareOptions) {
	span := min(row.BaseSpanS, row.CurrentSpanS)
	if span <= 0 {
		row.untested("not tested: no target samples on one side")
		return
	}
	if bt.fit != nil && ct.fit != nil {
		row.NBase, row.NCurrent = bt.fit.N, ct.fit.N
	} else {
		row.note("standard errors of an older artifact assume independent samples")
	}
	floor := slopeFloorAt(m, cur, opts, cur.SpanS)
	diff, seDiff := ct.v-bt.v, math.Hypot(bt.se, ct.se)
	testable := bt.fit.Testable() && ct.fit.Testable()
	df := welchDOF(bt.se, bt.fit.dof(), ct.se, ct.fit.dof())
	c5, tilt := tCritical(df), bt.fit.tilt()+ct.fit.tilt()
	if testable && seDiff > 0 {
		row.P = tP(diff/seDiff, df)
	}
	beyond := math.Abs(diff) > tilt || (testable && math.Abs(diff) > c5*seDiff)
	if beyond && math.Abs(diff) >= floor {
		row.Verdict = direction(diff > 0, m.lowerBetter)
		return
	}
	mde := tilt
	if testable {
		mde = min(mde, detectable(c5, seDiff))
	}
	if mde <= floor {
		return
	}
	why := fmt.Sprintf("changes under %s %s cannot be told from noise", TrendNumber(m.name, mde), slopeUnit(m.name))
	if math.IsInf(mde, 1) {
		why = fmt.Sprintf("the target's samples are too correlated for a slope (%.1f effective of %d needed)",
			min(bt.fit.NEff, ct.fit.NEff), MinNEff)
		mde = detectable(tCritical(MinNEff-2), seDiff)
	}
	row.untested(fmt.Sprintf("too short to judge: %s (least worth judging %s); %s", why,
		TrendNumber(m.name, floor), howLong(mde, span, func(s float64) float64 { return slopeFloorAt(m, cur, opts, s) })))
}

// slopeFloorAt is a slope metric's least change worth a verdict over a
// run of spanS seconds: the RSS floor falls as a longer run lets a slower leak grow past the leak floors.
func slopeFloorAt(m metricDef, cur *TargetStats, opts CompareOptions, spanS float64) float64 {
	if BaseMetric(m.name) == MetricRSSSlope {
		return rssSlopeFloor(opts.RSSSlopeFloor, spanS, cur.RSSMB.Start)
	}
	return opts.floor(m)
}

// detectable is the least difference the test finds about four times in
// five at critical value c5 and standard error se.
func detectable(c5, se float64) float64 { return (c5 + zPower80) * se }

// howLong says how long both runs would need to be for a change at the
// floor to be seen. A slope's error falls as span^-3/2 over independent
// noise but only as 1/span over a bounded cycle (a GC sawtooth), so the
// detectable change at s seconds is taken as mde·span/s, the slower; the
// answer is the first s (in 5% steps, up to a day) where it reaches the
// floor at s.
func howLong(mde, span float64, floorAt func(float64) float64) string {
	for s := span; s <= 86400; s *= 1.05 {
		if mde*span/s <= floorAt(s) {
			return fmt.Sprintf("about %s s on both sides would do", roundUp10(s))
		}
	}
	return "more than a day of samples would be needed"
}

func slopeUnit(metric string) string {
	if BaseMetric(metric) == MetricRSSSlope {
		return "MB/min"
	}
	return "fds/min"
}

// roundUp10 is seconds rounded up to ten.
func roundUp10(s float64) string { return TrimFloat(math.Ceil(s/10) * 10) }
