package compare

import (
	"fmt"
	"math"

	"github.com/aclements/go-moremath/stats"
	"github.com/benchtui/benchtui/artifacts"
)

// zPower80 is the normal quantile of 80% power: an effect of
// (c + zPower80)·SE is found about four times in five at critical value c.
const zPower80 = 0.8416

// judgeSlope judges the change of a slope between two runs: worse or
// better when the difference passes the two-sided 5% Welch t-test on the
// two autocorrelation-corrected errors, or exceeds the two runs' tilts
// together, and reaches the metric's floor (for RSS, also the leak floors
// over the current run). A difference that is not significant is same
// when either bound could have seen a change at the floor (the t-test at
// 80% power), and untested, with how long the runs would need to be, when
// neither could.
func judgeSlope(row *Row, m metricDef, bt, ct trendFigure, cur *artifacts.TargetStats, opts CompareOptions) {
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
	df := welchDOF(bt.se, bt.fit.DOF(), ct.se, ct.fit.DOF())
	c5, tilt := artifacts.TCritical(df), bt.fit.TiltBound()+ct.fit.TiltBound()
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
			min(bt.fit.NEff, ct.fit.NEff), artifacts.MinNEff)
		mde = detectable(artifacts.TCritical(artifacts.MinNEff-2), seDiff)
	}
	row.untested(fmt.Sprintf("too short to judge: %s (least worth judging %s); %s", why,
		TrendNumber(m.name, floor), howLong(mde, span, func(s float64) float64 { return slopeFloorAt(m, cur, opts, s) })))
}

// slopeFloorAt is a slope metric's least change worth a verdict over a
// run of spanS seconds: the RSS floor falls as a longer run lets a slower leak grow past the leak floors.
func slopeFloorAt(m metricDef, cur *artifacts.TargetStats, opts CompareOptions, spanS float64) float64 {
	if artifacts.BaseMetric(m.name) == MetricRSSSlope {
		return artifacts.RSSSlopeFloor(opts.RSSSlopeFloor, spanS, cur.RSSMB.Start)
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
	if artifacts.BaseMetric(metric) == MetricRSSSlope {
		return "MB/min"
	}
	return "fds/min"
}

// roundUp10 is seconds rounded up to ten.
func roundUp10(s float64) string { return artifacts.TrimFloat(math.Ceil(s/10) * 10) }

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
