package ui

import (
	"math"
	"strings"

	"charm.land/lipgloss/v2"
)

// chart is one chart of the detail view: the current run's curves drawn
// solid, the baseline run's shaded behind them, on one time axis.
type chart struct {
	cur, base []curve
	// span is the seconds the time axis covers, at least; the curves'
	// own length if longer.
	span float64
	ax   axis
}

// A current curve fills the halves of the cells its column's band covers
// (two levels a row: a flat line is a run of ▄ or ▀, a dip a column that
// reaches down); the baseline shades whole cells (░) wherever no current
// curve is, so both read apart without colour.
var halfGlyphs = [4]string{" ", "▄", "▀", "█"}

const baseGlyph = "░"

// cell is one character of a chart's plot.
type cell struct {
	halves uint8 // covered by a current curve: 1 the lower, 2 the upper
	// cur and base are the index+1 of the current curve on top and of the
	// baseline curve in the cell, 0 for none.
	cur, base int
}

// look is the cell's glyph and the curve it is drawn in: k > 0 the
// current curve k-1, k < 0 the baseline curve -k-1, 0 none.
func (c cell) look() (string, int) {
	switch {
	case c.halves > 0:
		return halfGlyphs[c.halves], c.cur
	case c.base > 0:
		return baseGlyph, -c.base
	}
	return " ", 0
}

// draw renders the chart exactly w columns wide and rows high, y labels
// on the left; a chart without data, or without room for one, says it
// waits for data.
func (c chart) draw(w, rows int, st Styles) []string {
	span := c.span
	for _, cv := range append(c.cur[:len(c.cur):len(c.cur)], c.base...) {
		span = max(span, cv.last())
	}
	n := w - labelWidth - 3 // a space, the label, a space, the axis
	if rows < 1 || n < 4 || span <= 0 {
		return placeholder(w, rows, st)
	}
	cur, base := bandsOf(c.cur, n, span, c.ax), bandsOf(c.base, n, span, c.ax)
	if !anyBand(cur) {
		return placeholder(w, rows, st)
	}
	lo, hi, _ := c.ax.bounds(append(cur, base...)...)
	grid := make([][]cell, rows)
	for r := range grid {
		grid[r] = make([]cell, n)
	}
	unit := func(v float64) int { // half rows from the bottom
		return max(0, min(int(math.Floor((v-lo)/(hi-lo)*float64(2*rows))), 2*rows-1))
	}
	for k, bs := range base {
		for j, b := range bs {
			for u := unit(b.lo); b.ok && u <= unit(b.hi); u += 2 - u%2 {
				grid[rows-1-u/2][j].base = k + 1
			}
		}
	}
	for k, bs := range cur {
		for j, b := range bs {
			for u := unit(b.lo); b.ok && u <= unit(b.hi); u++ {
				x := &grid[rows-1-u/2][j]
				x.halves, x.cur = x.halves|1<<(u%2), k+1
			}
		}
	}
	label := c.ax.labeler((hi - lo) / float64(rows))
	inks := c.inks()
	out := make([]string, rows)
	for r := range rows {
		text := label(hi - (float64(r)+0.5)*(hi-lo)/float64(rows)) // the row's middle
		line := " " + padLeft(text, labelWidth) + " ┤" + plotRow(grid[r], inks)
		if len(text) > labelWidth { // a long label pushes the row out: cut it back
			line = fit(line, w)
		}
		out[r] = line
	}
	return out
}

// ink is how a curve's cells start and end: its style's escape codes,
// taken once per chart rather than rendered for every run of cells.
type ink struct{ open, close string }

func inkOf(style lipgloss.Style) ink {
	s := style.Render("\x00")
	open, close, _ := strings.Cut(s, "\x00")
	return ink{open, close}
}

// inks are the curves' inks, keyed as cell.look keys them.
func (c chart) inks() map[int]ink {
	out := map[int]ink{0: {}}
	for i, cv := range c.cur {
		out[i+1] = inkOf(cv.style)
	}
	for i, cv := range c.base {
		out[-i-1] = inkOf(cv.style)
	}
	return out
}

// plotRow is one row of the plot, each run of cells of one curve inked
// once.
func plotRow(cells []cell, inks map[int]ink) string {
	var b strings.Builder
	who := 0
	for _, x := range cells {
		glyph, k := x.look()
		if k != who {
			b.WriteString(inks[who].close)
			b.WriteString(inks[k].open)
			who = k
		}
		b.WriteString(glyph)
	}
	b.WriteString(inks[who].close)
	return b.String()
}

func bandsOf(curves []curve, n int, span float64, ax axis) [][]band {
	out := make([][]band, len(curves))
	for i, c := range curves {
		out[i] = c.columns(n, span, ax)
	}
	return out
}

func anyBand(bands [][]band) bool {
	for _, bs := range bands {
		for _, b := range bs {
			if b.ok {
				return true
			}
		}
	}
	return false
}

// placeholder is a chart's room while it has nothing to draw.
func placeholder(w, rows int, st Styles) []string {
	out := make([]string, 0, rows)
	if rows > 0 {
		out = append(out, st.Dim.Render(fit("  waiting for data", w)))
	}
	for len(out) < rows {
		out = append(out, strings.Repeat(" ", w))
	}
	return out
}
