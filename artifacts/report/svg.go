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
// padL is the least room left of the plot: a chart whose y tick labels
// are wider takes more (plotLeft).
const (
	chartW, chartH         = 560, 240
	padL, padR, padT, padB = 58, 12, 42, 40
	plotRight, plotH       = chartW - padR, chartH - padT - padB
)

// The y axis title is drawn rotated, its baseline at x = yTitleX: its
// glyphs reach about 10 units left of it and yTitleDescent right.
const yTitleX, yTitleDescent = 12, 3

// plotLeft is where the plot begins: room, after the y axis title and a
// gap, for ya's widest tick label, right-aligned 5 units left of the plot.
func plotLeft(ya axis) float64 {
	widest := 0.0
	for _, v := range ya.ticks {
		widest = math.Max(widest, labelWidth(axisLabel(v)))
	}
	return math.Max(padL, math.Ceil(yTitleX+yTitleDescent+4+widest+5))
}

// labelWidth is how wide a tick label is drawn at the charts' 13 px,
// estimated for a wide sans-serif (DejaVu Sans: digits 0.64 em, "," and
// "." 0.32 em) so that narrower fonts have room to spare.
func labelWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		if r == ',' || r == '.' {
			w += 4.5
		} else {
			w += 8.5
		}
	}
	return w
}

// svg renders c. Every point is kept (series are already thinned to a
// bounded length), so a peak is drawn at its height.
func (c chart) svg() string {
	ya := c.yAxis()
	left := plotLeft(ya)
	ya.left = left
	xa := c.xAxis(left)
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img" aria-label="%s">`+"\n",
		chartW, chartH, html.EscapeString(c.title))
	fmt.Fprintf(&sb, `<text class="title" x="%g" y="16">%s</text>`+"\n", left, html.EscapeString(c.title))
	ya.gridY(&sb)
	xa.gridX(&sb)
	for _, m := range c.marks {
		x := xa.pos(m)
		fmt.Fprintf(&sb, `<line class="mark" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`+"\n", x, padT, x, padT+plotH)
	}
	fmt.Fprintf(&sb, `<rect class="frame" x="%g" y="%d" width="%g" height="%d"/>`+"\n", left, padT, plotRight-left, plotH)
	fmt.Fprintf(&sb, `<text class="axis" x="%g" y="%d" text-anchor="middle">%s</text>`+"\n", (left+plotRight)/2, chartH-4, html.EscapeString(c.xTitle))
	fmt.Fprintf(&sb, `<text class="axis" transform="translate(%d %d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", yTitleX, padT+plotH/2, html.EscapeString(c.yTitle))
	lx := int(left)
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

// xAxis spans every line's x values, drawn from left to the plot's right.
func (c chart) xAxis(left float64) axis {
	var all []float64
	for _, l := range c.lines {
		all = append(all, l.xs...)
	}
	lo, hi := bounds(all)
	a := linearAxis(lo, hi, false, true)
	a.left = left
	return a
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
