package report

import (
	"fmt"
	"math"
	"strings"
)

// axis maps values to SVG positions along x or y, linearly or by their
// logarithm, and holds the ticks to label and grid.
type axis struct {
	lo, hi   float64 // in values (not logarithms)
	log, isY bool
	ticks    []float64
	// left is where the plot begins (plotLeft); it ends at plotRight.
	left float64
}

// pos is where v falls on the axis, in SVG user units.
func (a axis) pos(v float64) float64 {
	f := 0.0
	if a.log {
		v = math.Max(v, a.lo)
		f = (math.Log10(v) - math.Log10(a.lo)) / (math.Log10(a.hi) - math.Log10(a.lo))
	} else {
		f = (v - a.lo) / (a.hi - a.lo)
	}
	if a.isY {
		return padT + plotH - f*plotH
	}
	return a.left + f*(plotRight-a.left)
}

// linearAxis spans [lo, hi] widened to round ticks about 5 apart; with
// exact the ends stay at lo and hi (the time axis: no empty margins).
func linearAxis(lo, hi float64, isY, exact bool) axis {
	if hi <= lo {
		lo, hi = lo-0.5, hi+0.5
		if lo < 0 && hi >= 0 && !exact {
			lo, hi = 0, hi+0.5
		}
	}
	step := niceStep((hi - lo) / 5)
	a := axis{lo: lo, hi: hi, isY: isY}
	if !exact {
		a.lo, a.hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	}
	for v := math.Ceil(a.lo/step) * step; v <= a.hi+step/1e6; v += step {
		a.ticks = append(a.ticks, v)
	}
	return a
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// logAxis spans the positive values in whole decades (zeros, a step with
// no operation, sit on the floor), ticked at 1, 2 and 5 of each decade
// when there are few decades, at each decade otherwise.
func logAxis(vs []float64) axis {
	lo, hi := math.Inf(1), 0.0
	for _, v := range vs {
		if v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi == 0 {
		lo, hi = 0.1, 1
	}
	a := axis{lo: math.Pow(10, math.Floor(math.Log10(lo))), hi: math.Pow(10, math.Ceil(math.Log10(hi))), log: true, isY: true}
	if a.hi <= a.lo {
		a.hi = a.lo * 10
	}
	mults := []float64{1, 2, 5}
	if a.hi/a.lo > 1000 {
		mults = []float64{1}
	}
	for d := a.lo; d <= a.hi*1.0001; d *= 10 {
		for _, m := range mults {
			if v := d * m; v <= a.hi*1.0001 {
				a.ticks = append(a.ticks, v)
			}
		}
	}
	return a
}

// gridY draws a horizontal gridline and a label at each tick.
func (a axis) gridY(sb *strings.Builder) {
	for _, v := range a.ticks {
		y := a.pos(v)
		fmt.Fprintf(sb, `<line class="grid" x1="%g" y1="%.1f" x2="%d" y2="%.1f"/>`+"\n", a.left, y, plotRight, y)
		fmt.Fprintf(sb, `<text class="tick" x="%g" y="%.1f" text-anchor="end">%s</text>`+"\n", a.left-5, y+4, axisLabel(v))
	}
}

// gridX draws a vertical gridline and a label at each tick.
func (a axis) gridX(sb *strings.Builder) {
	for _, v := range a.ticks {
		x := a.pos(v)
		fmt.Fprintf(sb, `<line class="grid" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`+"\n", x, padT, x, padT+plotH)
		fmt.Fprintf(sb, `<text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x, padT+plotH+15, axisLabel(v))
	}
}
