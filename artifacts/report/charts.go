package report

import (
	"math"

	"github.com/benchtui/benchtui/artifacts"
)

// Chart colours: one per figure; a baseline is drawn dashed in its
// figure's colour.
const (
	colorP50  = "#2563eb"
	colorP99  = "#dc2626"
	colorRPS  = "#16a34a"
	colorRSS  = "#9333ea"
	colorFit  = "#d97706"
	baseLabel = " base"
)

// runSeries is a run's series with its steps laid end to end on one time
// axis, and where each step after the first begins.
type runSeries struct {
	t, p50, p99, rps, rss []float64
	marks                 []float64
	hasRSS                bool
}

func seriesOf(a *artifacts.Artifact) runSeries {
	var r runSeries
	offset := 0.0
	for i, s := range a.Steps {
		if i > 0 && len(s.Series) > 0 {
			r.marks = append(r.marks, offset)
		}
		for _, p := range s.Series {
			r.t = append(r.t, offset+p.T)
			r.p50, r.p99 = append(r.p50, p.P50MS), append(r.p99, p.P99MS)
			r.rps, r.rss = append(r.rps, p.RPS), append(r.rss, p.RSSMB)
			r.hasRSS = r.hasRSS || p.RSSMB > 0
		}
		if n := len(s.Series); n > 0 {
			offset += s.Series[n-1].T
		}
	}
	return r
}

// charts are the section's HTML charts: latency (log axis) and throughput
// over time with the baseline run dashed beside the newest, the target's
// RSS scaled to its data with its fitted slope, and for a sweep the
// latency against the swept value.
func (s *section) charts() []string {
	if s.newest == nil {
		return nil
	}
	cur := seriesOf(s.newest)
	if len(cur.t) < 2 {
		return nil
	}
	var base *runSeries
	if s.base != nil {
		if b := seriesOf(s.base); len(b.t) >= 2 {
			base = &b
		}
	}
	out := []string{latencyChart(cur, base), throughputChart(cur, base)}
	if cur.hasRSS {
		out = append(out, rssChart(cur))
	}
	var baseSteps []artifacts.Step
	if s.base != nil {
		baseSteps = s.base.Steps
	}
	if c, ok := sweepChart(s.newest.Steps, baseSteps); ok {
		out = append(out, c)
	}
	return out
}

func latencyChart(cur runSeries, base *runSeries) string {
	c := chart{title: "Latency over time", xTitle: "time (s)", yTitle: "latency (ms, log)", logY: true, marks: cur.marks,
		lines: []line{{name: "p50", color: colorP50, xs: cur.t, ys: cur.p50}, {name: "p99", color: colorP99, xs: cur.t, ys: cur.p99}}}
	if base != nil {
		c.lines = append(c.lines, line{name: "p50" + baseLabel, color: colorP50, xs: base.t, ys: base.p50, dashed: true},
			line{name: "p99" + baseLabel, color: colorP99, xs: base.t, ys: base.p99, dashed: true})
	}
	return c.svg()
}

func throughputChart(cur runSeries, base *runSeries) string {
	c := chart{title: "Throughput over time", xTitle: "time (s)", yTitle: "operations/s", fromZero: true, marks: cur.marks,
		lines: []line{{name: "ops/s", color: colorRPS, xs: cur.t, ys: cur.rps}}}
	if base != nil {
		c.lines = append(c.lines, line{name: "ops/s" + baseLabel, color: colorRPS, xs: base.t, ys: base.rps, dashed: true})
	}
	return c.svg()
}

// rssChart draws the target's RSS on an axis scaled to its data, with the
// least-squares line through it, labelled with its slope.
func rssChart(cur runSeries) string {
	var ts, ys []float64
	for i, v := range cur.rss {
		if v > 0 {
			ts, ys = append(ts, cur.t[i]), append(ys, v)
		}
	}
	c := chart{title: "Target RSS over time", xTitle: "time (s)", yTitle: "RSS (MB)", marks: cur.marks,
		lines: []line{{name: "RSS", color: colorRSS, xs: ts, ys: ys}}}
	if slope, icept, ok := fitLine(ts, ys); ok {
		x0, x1 := ts[0], ts[len(ts)-1]
		c.lines = append(c.lines, line{name: "fit " + artifacts.TrimFloat(artifacts.RoundTo(slope*60, 100)) + " MB/min", color: colorFit,
			xs: []float64{x0, x1}, ys: []float64{icept + slope*x0, icept + slope*x1}, dashed: true})
	}
	return c.svg()
}

// fitLine is the least-squares line through (xs, ys); ok is false with
// fewer than two distinct xs.
func fitLine(xs, ys []float64) (slope, intercept float64, ok bool) {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i, x := range xs {
		sx, sy, sxx, sxy = sx+x, sy+ys[i], sxx+x*x, sxy+x*ys[i]
	}
	d := n*sxx - sx*sx
	if len(xs) < 2 || math.Abs(d) < 1e-12 {
		return 0, 0, false
	}
	slope = (n*sxy - sx*sy) / d
	return slope, (sy - slope*sx) / n, true
}

// sweepChart is the chart a sweep exists for: p50 and p99 (log axis)
// against the swept value, one point per step, and the baseline run's
// dashed behind them when it swept the same parameter.
func sweepChart(steps, base []artifacts.Step) (string, bool) {
	param := sweepOf(steps)
	if param == "" {
		return "", false
	}
	xs, p50, p99 := sweepSeries(steps, param)
	c := chart{title: "Latency against " + param, xTitle: param, yTitle: "latency (ms, log)", logY: true,
		lines: []line{{name: "p50", color: colorP50, xs: xs, ys: p50, dots: true}, {name: "p99", color: colorP99, xs: xs, ys: p99, dots: true}}}
	if sweepOf(base) == param {
		bx, b50, b99 := sweepSeries(base, param)
		c.lines = append(c.lines, line{name: "p50" + baseLabel, color: colorP50, xs: bx, ys: b50, dashed: true, dots: true},
			line{name: "p99" + baseLabel, color: colorP99, xs: bx, ys: b99, dashed: true, dots: true})
	}
	return c.svg(), true
}

// sweepOf is the parameter steps sweep, "" when they are no sweep (fewer
// than two steps, or not one parameter).
func sweepOf(steps []artifacts.Step) string {
	if len(steps) < 2 {
		return ""
	}
	return sweepParam(steps)
}

// sweepSeries are the swept values of steps and their p50 and p99.
func sweepSeries(steps []artifacts.Step, param string) (xs, p50, p99 []float64) {
	for _, s := range steps {
		xs = append(xs, s.Params[param])
		p50, p99 = append(p50, s.LatencyMS.P50), append(p99, s.LatencyMS.P99)
	}
	return xs, p50, p99
}
