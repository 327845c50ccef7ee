package ui

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// plot draws untimed series (one second apart) as a chart's current
// curves, ANSI stripped.
func plot(ax axis, w, rows int, series ...[]float64) []string {
	c := chart{ax: ax}
	for _, s := range series {
		c.cur = append(c.cur, curve{v: s})
	}
	return stripAll(c.draw(w, rows, DefaultStyles()))
}

func stripAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = ansi.Strip(l)
	}
	return out
}

// plotRows are the rows of a drawn chart without their y labels: the
// plot area only.
func plotRows(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if j := strings.Index(l, "┤"); j >= 0 {
			l = l[j+len("┤"):]
		}
		out[i] = l
	}
	return out
}

// labelOf is a chart row's y label.
func labelOf(line string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.SplitN(line, "┤", 2)[0]), 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// inked is whether a plot row draws a current curve.
func inked(row string) bool { return strings.ContainsAny(row, "▄▀█") }

// inkedRows are the indexes of the rows that draw a current curve.
func inkedRows(rows []string) []int {
	var out []int
	for i, r := range rows {
		if inked(r) {
			out = append(out, i)
		}
	}
	return out
}

func TestChartShapes(t *testing.T) {
	for _, ax := range []axis{{}, {log: true}} {
		for _, s := range [][]float64{nil, {}, {3}, {3, 3, 3}, {0, 0}, {1, 1e6, 2}, {-5, 5}} {
			for _, rows := range []int{1, 4, 11} {
				lines := plot(ax, 30, rows, s)
				if len(lines) != rows {
					t.Errorf("%v %+v: %d lines, want %d", s, ax, len(lines), rows)
				}
				for _, l := range lines {
					if len1(l) != 30 {
						t.Errorf("%v %+v: line %q is %d wide, want 30", s, ax, l, len1(l))
					}
				}
			}
		}
	}
}

// TestChartColumnsKeepMinAndMax: a column holds the least and the
// greatest value of its points, however many share it, and a point held
// over several columns fills each.
func TestChartColumnsKeepMinAndMax(t *testing.T) {
	c := curve{v: []float64{5, 9, 1, 5, 5, 5, 7, 5, 5}}
	got := c.columns(3, 9, axis{})
	want := []band{{1, 9, true}, {5, 5, true}, {5, 7, true}}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("columns %v, want %v", got, want)
		}
	}
	wide := curve{t: []float64{4, 8}, v: []float64{2, 3}}.columns(8, 16, axis{})
	want = []band{{2, 2, true}, {2, 2, true}, {3, 3, true}, {3, 3, true}, {}, {}, {}, {}}
	for i := range want {
		if wide[i] != want[i] {
			t.Fatalf("two 4 s points on a 16 s axis of 8 columns: %v, want %v", wide, want)
		}
	}
}

// TestGoldenChartDip: 300 s of ~280 rps into 30 columns with one second
// at 154. The column of the dip reaches down to it (each column's least
// value is drawn, not only its greatest), and the rate sits in the rows
// above.
func TestGoldenChartDip(t *testing.T) {
	rps := make([]float64, 300)
	for i := range rps {
		rps[i] = 278 + float64(i%5)
	}
	rps[200] = 154
	lines := plot(axis{}, 38, 6, rps)
	golden(t, "chart-dip", strings.Join(lines, "\n"))
	rows := plotRows(lines)
	bottom := rows[len(rows)-1]
	if !inked(bottom) || strings.Count(bottom, " ") < len([]rune(bottom))-2 {
		t.Errorf("the dip to 154 does not reach the bottom row alone:\n%s", strings.Join(lines, "\n"))
	}
	if lo := labelOf(lines[len(lines)-1]); lo > 170 {
		t.Errorf("bottom row labelled %v: the axis does not reach down to the dip", lo)
	}
}

// TestGoldenChartFlatNoisy: RSS of 40 MB wobbling by 0.15 MB for a
// minute reads flat: a row or two of the ten, not the whole chart (the
// axis spans at least 5% of the value).
func TestGoldenChartFlatNoisy(t *testing.T) {
	rss := make([]float64, 60)
	for i := range rss {
		rss[i] = 40 + 0.15*math.Sin(float64(i))
	}
	lines := plot(axis{}, 38, 10, rss)
	golden(t, "chart-flat-noisy", strings.Join(lines, "\n"))
	if used := inkedRows(plotRows(lines)); len(used) > 2 {
		t.Errorf("a 0.15 MB wobble on 40 MB fills rows %v of 10, want it flat:\n%s", used, strings.Join(lines, "\n"))
	}
}

// TestGoldenChartBaseline: half way through a 30 s step at ~5400 rps,
// with the baseline's whole 30 s at ~6100 behind it on the same axes.
// The baseline's shading lies above this run's curve, and alone past
// this run's 15 s.
func TestGoldenChartBaseline(t *testing.T) {
	cur, base := series(15, 5400, 1.5, 0.1), series(30, 6100, 1.1, 0.01)
	st := DefaultStyles()
	c := chart{span: 30, cur: []curve{pointsCurve(cur, rpsOf, st.Rate)}, base: []curve{pointsCurve(base, rpsOf, st.Base)}}
	lines := stripAll(c.draw(38, 8, st))
	golden(t, "chart-baseline", strings.Join(lines, "\n"))
	rows := plotRows(lines)
	top, bottom := -1, -1
	for i, r := range rows {
		if strings.Contains(r, baseGlyph) && top < 0 {
			top = i
		}
		if inked(r) {
			bottom = i
		}
	}
	if top < 0 || bottom < 0 || top >= bottom {
		t.Errorf("baseline shading from row %d, this run down to row %d: want the baseline above:\n%s", top, bottom, strings.Join(lines, "\n"))
	}
	for _, r := range rows {
		if tail := []rune(r)[len([]rune(r))/2+1:]; strings.ContainsAny(string(tail), "▄▀█") {
			t.Errorf("this run drawn past its 15 s of 30: %q", r)
		}
	}
}

// TestChartShowsTheTrend: a steady ~100 rps sits mid-chart, not on its
// top or bottom row; a linear RSS rise 7.7→44.9 MB climbs every row
// instead of one step then a flat line; and p50 (0.26 ms) stays well
// apart from p99 (5.46 ms) on the log axis.
func TestChartShowsTheTrend(t *testing.T) {
	steady := make([]float64, 60)
	rise := make([]float64, 60)
	for i := range steady {
		steady[i] = 100 + float64(i%3)
		rise[i] = 7.7 + (44.9-7.7)*float64(i)/59
	}
	rows := plotRows(plot(axis{}, 72, 10, steady))
	if inked(rows[0]) || inked(rows[9]) {
		t.Errorf("a steady rate touches the top or bottom row:\n%s", strings.Join(rows, "\n"))
	}
	rows = plotRows(plot(axis{}, 72, 10, rise))
	longest := 0
	for _, r := range rows {
		for _, run := range strings.FieldsFunc(r, func(c rune) bool { return c == ' ' }) {
			longest = max(longest, len([]rune(run)))
		}
	}
	if used := inkedRows(rows); len(used) < 9 || longest > 12 {
		t.Errorf("a linear rise uses rows %v of 10, flat for %d columns at most; want 9+ and a straight climb:\n%s", used, longest, strings.Join(rows, "\n"))
	}
	p50, p99 := make([]float64, 30), make([]float64, 30)
	for i := range p50 {
		p50[i], p99[i] = 0.26, 5.46
	}
	used := inkedRows(plotRows(plot(axis{log: true}, 60, 10, p50, p99)))
	if len(used) != 2 || used[1]-used[0] < 5 {
		t.Errorf("p50 and p99 drawn on rows %v, want two rows far apart on the log axis", used)
	}
}

// TestChartLabelsReadApart: a narrow range (RSS 20.7–21.0 MB over ten
// rows) gets labels with the decimals that tell its rows apart.
func TestChartLabelsReadApart(t *testing.T) {
	rss := make([]float64, 40)
	for i := range rss {
		rss[i] = 20.7 + 0.3*float64(i)/39
	}
	seen := map[string]bool{}
	for _, l := range plot(axis{}, 60, 10, rss) {
		label := strings.TrimSpace(strings.SplitN(l, "┤", 2)[0])
		if seen[label] {
			t.Errorf("label %q on two rows", label)
		}
		seen[label] = true
	}
}
