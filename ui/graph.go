package ui

import (
	"math"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"
)

// labelWidth is the width of a graph's y-axis labels.
const labelWidth = 5

// resample reduces xs to n points, each the maximum of its bucket, so a
// peak is never drawn lower than it was (asciigraph's Width interpolates,
// which would). A series of n points or fewer is returned as it is.
func resample(xs []float64, n int) []float64 {
	if n <= 0 || len(xs) <= n {
		return xs
	}
	out := make([]float64, n)
	for i := range n {
		lo, hi := i*len(xs)/n, (i+1)*len(xs)/n
		m := xs[lo]
		for _, x := range xs[lo+1 : hi] {
			m = max(m, x)
		}
		out[i] = m
	}
	return out
}

// axis is how a chart maps values to rows: linear with a little headroom
// around the data, or logarithmic (latency percentiles a decade apart).
type axis struct{ log bool }

// logFloor is the smallest value a log axis shows (a latency of 1 µs in
// ms): zeros and below are drawn there.
const logFloor = 0.001

// headroom is the share of the data's span left free above and below it,
// so a flat line sits mid-chart instead of on its top or bottom row.
const headroom = 0.1

// scaled maps the series to the axis and returns the y range to draw:
// the data's range with headroom (for a flat series, 10% of its value).
func (a axis) scaled(series [][]float64) (out [][]float64, lo, hi float64) {
	out = make([][]float64, len(series))
	first := true
	for i, s := range series {
		out[i] = make([]float64, len(s))
		for j, v := range s {
			if a.log {
				v = math.Log10(max(v, logFloor))
			}
			out[i][j] = v
			if first || v < lo {
				lo = v
			}
			if first || v > hi {
				hi = v
			}
			first = false
		}
	}
	pad := headroom * (hi - lo)
	if a.log {
		pad = max(pad, 0.1) // a tenth of a decade
	} else if pad < 1e-9*max(math.Abs(hi), 1) {
		pad = headroom * max(math.Abs(hi), 1)
	}
	lo, hi = lo-pad, hi+pad
	if !a.log && lo < 0 && !anyBelow(series, 0) {
		lo = 0 // counts and sizes: never a negative axis
	}
	return out, lo, hi
}

func anyBelow(series [][]float64, x float64) bool {
	for _, s := range series {
		for _, v := range s {
			if v < x {
				return true
			}
		}
	}
	return false
}

// labeler formats the y axis's values, rows step apart: compactly, with
// as many decimals as neighbouring rows need to read apart (a 0.3 MB
// range over ten rows of RSS near 21 MB would read 21.0, 21.0, 20.9…).
func (a axis) labeler(step float64) func(float64) string {
	decimals := -1 // compact's own
	if !a.log && step > 0 && step < 1 {
		decimals = min(int(math.Ceil(-math.Log10(step))), 3)
	}
	return func(v float64) string {
		if a.log {
			v = math.Pow(10, v)
		}
		if decimals >= 0 && math.Abs(v) < 1e4 && decimals > decimalsOf(compact(v)) {
			return padLeft(strconv.FormatFloat(v, 'f', decimals, 64), labelWidth)
		}
		return padLeft(compact(v), labelWidth)
	}
}

// decimalsOf is how many digits a number's text has after its point.
func decimalsOf(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// graph draws one or more series of the same length as an asciigraph line
// chart exactly w columns wide and lines rows high (lines >= 2), y labels
// on the left, on axis ax. Series longer than the room are resampled
// keeping maxima; empty series draw a dim placeholder instead
// (asciigraph.Plot panics on them).
func graph(series [][]float64, colors []asciigraph.AnsiColor, ax axis, w, lines int, st Styles) []string {
	data := w - labelWidth - 3 // asciigraph pads the label by one, then the axis
	out := make([]string, 0, lines)
	if len(series) == 0 || len(series[0]) == 0 || data < 4 || lines < 2 {
		out = append(out, st.Dim.Render(fit("  waiting for data", w)))
		for len(out) < lines {
			out = append(out, strings.Repeat(" ", w))
		}
		return out
	}
	rs := make([][]float64, len(series))
	for i, s := range series {
		rs[i] = resample(s, data)
	}
	rs, lo, hi := ax.scaled(rs)
	opts := []asciigraph.Option{
		asciigraph.Height(lines - 1),
		asciigraph.LowerBound(lo), asciigraph.UpperBound(hi),
		asciigraph.YAxisValueFormatter(ax.labeler((hi - lo) / float64(max(lines-2, 1)))),
	}
	if len(colors) > 0 {
		opts = append(opts, asciigraph.SeriesColors(colors...))
	}
	plot := asciigraph.PlotMany(rs, opts...)
	for _, l := range strings.Split(plot, "\n") {
		if len(out) == lines {
			break
		}
		out = append(out, fit(l, w))
	}
	for len(out) < lines {
		out = append([]string{strings.Repeat(" ", w)}, out...) // a flat line draws one row: keep it at the bottom
	}
	return out
}

// fit pads or cuts s (which may hold ANSI styles) to exactly w columns.
func fit(s string, w int) string {
	n := lipgloss.Width(s)
	switch {
	case n > w:
		return ansi.Truncate(s, w, "…")
	case n < w:
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// padLeft right-aligns s in w columns.
func padLeft(s string, w int) string {
	if n := lipgloss.Width(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}
