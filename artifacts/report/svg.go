package report

import (
	"fmt"
	"html"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/benchtui/benchtui/artifacts"
)

// line is one polyline of a chart, over its own x values.
type line struct {
	name, color string
	xs, ys      []float64
	// dashed draws a baseline or a fit; dots marks every point (a sweep).
	dashed, dots bool
}

// chart is an SVG line chart: titled axes with ticks and gridlines, a
// linear or logarithmic y axis, and vertical marks (step boundaries).
type chart struct {
	title, xTitle, yTitle string
	lines                 []line
	logY                  bool
	// fromZero starts a linear y axis at 0; otherwise it fits the data
	// (an RSS that rises from 300 to 330 MB must look like it rises).
	fromZero bool
	marks    []float64
}

// Chart geometry, in SVG user units; the SVG scales to its container.
const (
	chartW, chartH         = 560, 240
	padL, padR, padT, padB = 58, 12, 42, 40
	plotW, plotH           = chartW - padL - padR, chartH - padT - padB
)

// svg renders c. Every point is kept (series are already thinned to a
// bounded length), so a peak is drawn at its height.
func (c chart) svg() string {
	xa := c.xAxis()
	ya := c.yAxis()
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img" aria-label="%s">`+"\n",
		chartW, chartH, html.EscapeString(c.title))
	fmt.Fprintf(&sb, `<text class="title" x="%d" y="16">%s</text>`+"\n", padL, html.EscapeString(c.title))
	ya.gridY(&sb)
	xa.gridX(&sb)
	for _, m := range c.marks {
		x := xa.pos(m)
		fmt.Fprintf(&sb, `<line class="mark" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`+"\n", x, padT, x, padT+plotH)
	}
	fmt.Fprintf(&sb, `<rect class="frame" x="%d" y="%d" width="%d" height="%d"/>`+"\n", padL, padT, plotW, plotH)
	fmt.Fprintf(&sb, `<text class="axis" x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", padL+plotW/2, chartH-4, html.EscapeString(c.xTitle))
	fmt.Fprintf(&sb, `<text class="axis" transform="translate(12 %d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", padT+plotH/2, html.EscapeString(c.yTitle))
	lx := padL
	for _, l := range c.lines {
		l.draw(&sb, xa, ya)
		// The legend is a row under the title, each entry as wide as its
		// name (about 8 units a character at 13px).
		fmt.Fprintf(&sb, `<text class="legend" x="%d" y="34" style="fill:%s">%s %s</text>`+"\n", lx, l.color, legendMark(l), html.EscapeString(l.name))
		lx += 30 + 8*utf8.RuneCountInString(l.name)
	}
	sb.WriteString("</svg>\n")
	return sb.String()
}

func legendMark(l line) string {
	if l.dashed {
		return "┅"
	}
	return "■"
}

// draw writes l as a polyline, and a dot per point when asked.
func (l line) draw(sb *strings.Builder, xa, ya axis) {
	dash := ""
	if l.dashed {
		dash = ` stroke-dasharray="5 3"`
	}
	sb.WriteString(`<polyline fill="none" stroke-width="1.6" stroke="` + l.color + `"` + dash + ` points="`)
	for j, y := range l.ys {
		if j < len(l.xs) {
			fmt.Fprintf(sb, "%.1f,%.1f ", xa.pos(l.xs[j]), ya.pos(y))
		}
	}
	sb.WriteString("\"/>\n")
	if !l.dots {
		return
	}
	for j, y := range l.ys {
		if j < len(l.xs) {
			fmt.Fprintf(sb, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", xa.pos(l.xs[j]), ya.pos(y), l.color)
		}
	}
}

// xAxis spans every line's x values.
func (c chart) xAxis() axis {
	var all []float64
	for _, l := range c.lines {
		all = append(all, l.xs...)
	}
	lo, hi := bounds(all)
	return linearAxis(lo, hi, false, true)
}

// yAxis spans every line's y values: decades on a log axis, nice round
// ticks on a linear one.
func (c chart) yAxis() axis {
	var all []float64
	for _, l := range c.lines {
		all = append(all, l.ys...)
	}
	if c.logY {
		return logAxis(all)
	}
	lo, hi := bounds(all)
	if c.fromZero {
		lo = math.Min(0, lo)
	}
	return linearAxis(lo, hi, true, false)
}

func bounds(vs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if len(vs) == 0 {
		return 0, 0
	}
	return lo, hi
}

// axisLabel prints a tick value with three significant digits.
func axisLabel(v float64) string {
	if math.Abs(v) >= 1000 {
		return artifacts.FormatNumber(v)
	}
	return artifacts.TrimFloat(artifacts.RoundTo(v, 1000))
}
