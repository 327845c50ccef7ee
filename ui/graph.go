package ui

import (
	"math"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/benchtui/benchtui/artifacts"
)

// labelWidth is the least width of a chart's y-axis labels.
const labelWidth = 5

// curve is one series of a chart: value v[i] held over the interval
// that ends at t[i] (seconds into the step) and begins where the one
// before it ended, the first at 0. Values without times (t nil) are one
// second apart.
type curve struct {
	t, v  []float64
	style lipgloss.Style
}

// pointsCurve is one figure of a step's series.
func pointsCurve(pts []artifacts.Point, figure func(artifacts.Point) float64, style lipgloss.Style) curve {
	c := curve{t: make([]float64, len(pts)), v: make([]float64, len(pts)), style: style}
	for i, p := range pts {
		c.t[i], c.v[i] = p.T, figure(p)
	}
	return c
}

// end is when value i's interval ends.
func (c curve) end(i int) float64 {
	if c.t == nil {
		return float64(i + 1)
	}
	return c.t[i]
}

// last is when the curve's last interval ends, 0 for an empty curve.
func (c curve) last() float64 {
	if len(c.v) == 0 {
		return 0
	}
	return c.end(len(c.v) - 1)
}

// resample reduces xs to n points, each the maximum of its bucket, so a
// peak is never drawn lower than it was. A series of n points or fewer is
// returned as it is.
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

// band is the least and greatest value a chart column holds.
type band struct {
	lo, hi float64
	ok     bool
}

func (b *band) add(v float64) {
	if !b.ok {
		*b = band{v, v, true}
		return
	}
	b.lo, b.hi = min(b.lo, v), max(b.hi, v)
}

// columns reduces the curve to n columns of span/n seconds each, on the
// axis's scale. A column's band holds every value whose interval
// overlaps it: a dip or a peak shorter than a column still reaches as
// far as it went, a value held over several columns fills each, and
// neighbouring values join up like a line. Columns after the curve's end
// stay empty.
func (c curve) columns(n int, span float64, ax axis) []band {
	out := make([]band, n)
	start := 0.0
	for i, v := range c.v {
		end := c.end(i)
		first := min(int(start/span*float64(n)), n-1)
		last := min(int(math.Ceil(end/span*float64(n)))-1, n-1)
		for j := max(first, 0); j <= max(last, first); j++ {
			out[j].add(ax.at(v))
		}
		start = max(start, end)
	}
	return out
}

// axis is how a chart maps values to rows: linear, or logarithmic
// (latency percentiles a decade apart).
type axis struct{ log bool }

// logFloor is the smallest value a log axis shows (a latency of 1 µs in
// ms): zeros and below are drawn there.
const logFloor = 0.001

// headroom is the share of the data's span left free above and below it,
// so a flat line sits mid-chart instead of on its top or bottom row.
const headroom = 0.1

// A linear axis spans at least minSpanShare of its largest value, and at
// least minSpanFloor in the figure's own unit (1 rps, 1 MB, 1 fd) near
// zero. 5% is the comparison's default minimum effect: a wobble smaller
// than a change the comparison would call worse or better never fills
// the chart (0.15 MB on 40 MB of RSS takes under a tenth of it, and a
// flat target reads flat), while a change that large takes most of it.
const (
	minSpanShare = 0.05
	minSpanFloor = 1.0
)

// at is v on the axis's scale.
func (a axis) at(v float64) float64 {
	if a.log {
		return math.Log10(max(v, logFloor))
	}
	return v
}

// bounds is the y range to draw the bands in: their range with headroom,
// at least the minimum span on a linear axis (a tenth of a decade each
// side on a log one), never below zero for data that is not.
func (a axis) bounds(bands ...[]band) (lo, hi float64, ok bool) {
	var all band
	for _, bs := range bands {
		for _, b := range bs {
			if b.ok {
				all.add(b.lo)
				all.add(b.hi)
			}
		}
	}
	if !all.ok {
		return 0, 0, false
	}
	pad := headroom * (all.hi - all.lo)
	if a.log {
		pad = max(pad, 0.1)
		return all.lo - pad, all.hi + pad, true
	}
	lo, hi = all.lo-pad, all.hi+pad
	need := max(minSpanShare*max(math.Abs(all.lo), math.Abs(all.hi)), minSpanFloor)
	if short := need - (hi - lo); short > 0 {
		lo, hi = lo-short/2, hi+short/2
	}
	if lo < 0 && all.lo >= 0 { // counts and sizes: never a negative axis
		lo, hi = 0, max(hi, need)
	}
	return lo, hi, true
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
			return strconv.FormatFloat(v, 'f', decimals, 64)
		}
		return compact(v)
	}
}

// decimalsOf is how many digits a number's text has after its point.
func decimalsOf(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
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
