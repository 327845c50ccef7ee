package ui

import (
	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
)

// baseLegend ends the caption of a chart with the baseline behind it.
const baseLegend = " " + baseGlyph + " base"

// Chart heights: a caption over 4 to 11 rows. Fewer rows cannot show a
// dip beside a flat line, so a chart short of 4 is left out rather than
// squeezed.
const (
	minChartRows = 4
	maxChartRows = 11
)

// room is how the detail view shares the lines between the live table
// and the banner: pairs of charts side by side (0 to 2) of pairLines each
// (a caption and the rows), probe rows, and the baseline pane the rest.
type room struct{ pairs, pairLines, probes int }

// shareRoom shares avail lines: first two pairs of charts at their least
// height (one pair when there is room for just one) and the baseline pane
// its title, header and best row; then the probe rows; then the pane up
// to seven lines; what is left lets the charts grow to their greatest
// height.
func (m *Model) shareRoom(gr *group, avail, probes int) room {
	want := min(m.baselineWant(gr), 7)
	paneLeast, pairLeast := min(want, 3), minChartRows+1
	r := room{pairs: min(max(avail-paneLeast, 0)/pairLeast, 2)}
	left := avail - paneLeast - r.pairs*pairLeast
	r.probes = min(probes, max(left, 0))
	left -= r.probes
	left -= min(max(left, 0), want-paneLeast)
	if r.pairs > 0 {
		r.pairLines = min(pairLeast+max(left, 0)/r.pairs, maxChartRows+1)
	}
	return r
}

// charts are the pairs of charts the room has: latency and throughput,
// then RSS and open files. With room for one pair only, a soak group
// keeps its RSS (what its policy watches), any other its latency.
func (m *Model) charts(gr *group, w int, r room) []string {
	switch {
	case r.pairs >= 2:
		return append(m.perfGraphs(gr, w, r.pairLines), m.resourceGraphs(gr, w, r.pairLines)...)
	case r.pairs == 1 && soakStep(gr) > 0:
		return m.resourceGraphs(gr, w, r.pairLines)
	case r.pairs == 1:
		return m.perfGraphs(gr, w, r.pairLines)
	}
	return nil
}

// baseSeries is the baseline's series of the step in view (the one with
// the running step's label), nil without a baseline, before the first
// snapshot, or when the baseline has no such step.
func baseSeries(gr *group) []artifacts.Point {
	if gr.base == nil || !gr.seen {
		return nil
	}
	for _, s := range gr.base.Steps {
		if s.Label == gr.snap.Label {
			return s.Series
		}
	}
	return nil
}

// timeSpan is the seconds the charts' time axis covers at least: the
// step's planned measured time while it is measured (a counted step's is
// only a cap, so not that), or the baseline's series if longer; a chart
// stretches it to its own curves. The current run's curves fill the axis
// from the left as the step goes on, and the baseline's lie where they
// were at the same time into its step: the two compare at a glance.
func timeSpan(gr *group, base []artifacts.Point) float64 {
	s, span := gr.snap, 0.0
	if gr.seen && s.Phase == engine.PhaseMeasure && s.Count == 0 {
		span = s.Planned.Seconds()
	}
	if n := len(base); n > 0 {
		span = max(span, base[n-1].T)
	}
	return span
}

// timeChart is a chart of one resource curve: on the step's time axis
// with the baseline's figure behind it when the curve has times and the
// baseline has that figure (fig nil: it has not); a curve without times
// on its own length.
func (m *Model) timeChart(gr *group, c curve, fig func(artifacts.Point) float64) chart {
	ch := chart{cur: []curve{c}}
	if c.t == nil {
		return ch
	}
	base := baseSeries(gr)
	ch.span = timeSpan(gr, base)
	if fig != nil && hasFigure(base, fig) {
		ch.base = []curve{pointsCurve(base, fig, m.st.Base)}
	}
	return ch
}

// pair draws two charts side by side under their captions, each half
// of w columns and lines-1 rows. With the baseline behind either, its
// legend ends the caption line once (on the right chart's caption unless
// only the left has it), whole however much of that caption must go: the
// table above has the figures.
func (m *Model) pair(capL, capR string, left, right chart, w, lines int) []string {
	lw, rw := w/2-1, w-w/2-1
	switch {
	case len(right.base) > 0:
		capR = withLegend(capR, rw)
	case len(left.base) > 0:
		capL = withLegend(capL, lw)
	}
	st := m.st
	return sideBySide(st.Dim.Render(fit(capL, lw)), st.Dim.Render(fit(capR, rw)), left.draw(lw, lines-1, st), right.draw(rw, lines-1, st))
}

func withLegend(text string, w int) string {
	if len1(text)+len1(baseLegend) > w {
		text = fit(text, max(w-len1(baseLegend), 0))
	}
	return text + baseLegend
}

// hasFigure is whether any point has the figure: a series of a run
// without a target has no RSS.
func hasFigure(pts []artifacts.Point, fig func(artifacts.Point) float64) bool {
	for _, p := range pts {
		if fig(p) > 0 {
			return true
		}
	}
	return false
}

// The figures of a series point the charts draw.
func p50Of(p artifacts.Point) float64     { return p.P50MS }
func p99Of(p artifacts.Point) float64     { return p.P99MS }
func rpsOf(p artifacts.Point) float64     { return p.RPS }
func rssOf(p artifacts.Point) float64     { return p.RSSMB }
func fdsOf(p artifacts.Point) float64     { return p.FDs }
func selfRSSOf(p artifacts.Point) float64 { return p.SelfMB }
