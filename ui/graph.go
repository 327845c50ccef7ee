package ui

import (
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

// graph draws one or more series of the same length as an asciigraph line
// chart exactly w columns wide and lines rows high (lines >= 2), y labels
// on the left. Series longer than the room are resampled keeping maxima;
// empty series draw a dim placeholder instead (asciigraph.Plot panics on
// them).
func graph(series [][]float64, colors []asciigraph.AnsiColor, w, lines int, st Styles) []string {
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
	opts := []asciigraph.Option{
		asciigraph.Height(lines - 1),
		asciigraph.YAxisValueFormatter(func(v float64) string { return padLeft(compact(v), labelWidth) }),
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
