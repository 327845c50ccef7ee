package artifacts

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// line is one polyline of a chart.
type line struct {
	name, color string
	ys          []float64
}

// Chart geometry, in SVG user units.
const (
	chartW, chartH         = 460, 170
	padL, padR, padT, padB = 48, 10, 22, 24
)

// svgChart draws lines over the shared x values as an inline SVG: a frame,
// the y range and x range as labels, one polyline per line and a legend. It
// keeps every point (series are already thinned to a bounded length), so a
// peak is drawn at its height.
func svgChart(title string, xs []float64, lines []line) string {
	xmin, xmax := bounds(xs)
	ymin, ymax := 0.0, math.Inf(-1)
	for _, l := range lines {
		_, hi := bounds(l.ys)
		ymax = math.Max(ymax, hi)
	}
	if ymax <= ymin {
		ymax = ymin + 1
	}
	if xmax <= xmin {
		xmax = xmin + 1
	}
	px := func(x float64) float64 { return padL + (x-xmin)/(xmax-xmin)*(chartW-padL-padR) }
	py := func(y float64) float64 { return chartH - padB - (y-ymin)/(ymax-ymin)*(chartH-padT-padB) }
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`+"\n",
		chartW, chartH, chartW, chartH, html.EscapeString(title))
	fmt.Fprintf(&sb, `<text x="%d" y="14">%s</text>`+"\n", padL, html.EscapeString(title))
	fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#ccc"/>`+"\n",
		padL, padT, chartW-padL-padR, chartH-padT-padB)
	fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", padL-4, padT+8, axisLabel(ymax))
	fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", padL-4, chartH-padB, axisLabel(ymin))
	fmt.Fprintf(&sb, `<text x="%d" y="%d">%ss</text>`+"\n", padL, chartH-8, axisLabel(xmin))
	fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="end">%ss</text>`+"\n", chartW-padR, chartH-8, axisLabel(xmax))
	for i, l := range lines {
		sb.WriteString(`<polyline fill="none" stroke-width="1.5" stroke="` + l.color + `" points="`)
		for j, y := range l.ys {
			if j < len(xs) {
				fmt.Fprintf(&sb, "%.1f,%.1f ", px(xs[j]), py(y))
			}
		}
		sb.WriteString("\"/>\n")
		lx := chartW - padR - 70*(len(lines)-i)
		fmt.Fprintf(&sb, `<text x="%d" y="14" fill="%s" style="fill:%s">■ %s</text>`+"\n", lx, l.color, l.color, html.EscapeString(l.name))
	}
	sb.WriteString("</svg>\n")
	return sb.String()
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

// axisLabel prints an axis bound with three significant digits.
func axisLabel(v float64) string {
	if v >= 1000 {
		return FormatNumber(v)
	}
	return trimFloat(roundTo(v, 100))
}
