package ui

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	artcompare "github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/engine"
)

// flatSoakBaseline is an earlier whole G5 run of 300 s whose target's RSS
// stayed flat: 40 MB with a 0.15 MB wobble.
func flatSoakBaseline() *artifacts.Artifact {
	a := soakArtifact()
	a.Run.ID, a.Run.Started, a.Run.Finished = "run-flat", t0.Add(-24*time.Hour), t0.Add(-24*time.Hour+301*time.Second)
	s := &a.Steps[0]
	s.DurationS, s.Events = 300, nil
	s.Series = series(60, 3150, 2.3, 0)
	for i := range s.Series {
		s.Series[i].T, s.Series[i].RSSMB = float64(5*(i+1)), round2(40+0.15*math.Sin(float64(i)))
	}
	s.Samples = blockSamples(s.Series)
	s.Target = &artifacts.TargetStats{RSSMB: artifacts.Range{Start: 40, Peak: 40.15, End: 40.1},
		RSSSlopeMBPerMin: 0.02, RSSTailSlopeMBMin: 0.01, SpanS: 300, FDs: artifacts.Range{Start: 60, Peak: 62, End: 61}}
	return a
}

// soakWithBaseline is G5 soaking at 400 s, its RSS climbing, with the
// flat run as its baseline and their comparison.
func soakWithBaseline(t *testing.T, w, h int) *Model {
	t.Helper()
	m := newTestModel(t, w, h)
	sess, err := engine.NewSession(testRegistry, m.cfg.Plan, m.cfg.Plan.Groups[1], engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m.sel, m.active = 1, 1
	m.Update(startedMsg{group: 1, sess: sess, at: t0})
	base := flatSoakBaseline()
	m.Update(baselineMsg{group: 1, path: "bench-results/G5-1795960800000.json", art: base})
	m.Update(SnapshotMsg{Group: 1, Sess: sess, Snap: soakSnapshot(400*time.Second, 2, engine.PhaseMeasure)})
	cur := soakArtifact()
	cur.Steps[0].Target.SpanS = 400
	cmp := artcompare.Compare([]*artifacts.Artifact{base}, []*artifacts.Artifact{cur}, artcompare.CompareOptions{})
	m.Update(CompareMsg{Group: 1, Cmp: cmp})
	return m
}

// chartRuns are the heights of the runs of chart rows on a screen (a
// pair of charts side by side is one run).
func chartRuns(s string) []int {
	var runs []int
	n := 0
	for _, l := range append(strings.Split(s, "\n"), "") {
		if strings.Contains(l, "┤") {
			n++
			continue
		}
		if n > 0 {
			runs = append(runs, n)
		}
		n = 0
	}
	return runs
}

// TestGoldenSoakBaseline is the screen: at 80x24 a soak with a
// baseline had charts of two rows, and its RSS row in the baseline pane
// hid under "… 17 more". Now both pairs of charts have four rows, the
// current RSS climbs over the baseline's flat one, and the pane keeps the
// RSS row.
func TestGoldenSoakBaseline(t *testing.T) {
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			s := screen(soakWithBaseline(t, sz.w, sz.h))
			checkShape(t, s, sz.w, sz.h)
			for _, want := range []string{"api RSS 210 MB", "░ base", "RSS MB/min", "baseline G5-1795960800000.json"} {
				if !strings.Contains(s, want) {
					t.Errorf("no %q on screen:\n%s", want, s)
				}
			}
			golden(t, "soak-baseline-"+sz.name, s)
		})
	}
	s := screen(soakWithBaseline(t, 80, 24))
	if runs := chartRuns(s); len(runs) != 2 || runs[0] < minChartRows || runs[1] < minChartRows {
		t.Errorf("chart rows %v at 80x24, want two pairs of %d rows or more:\n%s", runs, minChartRows, s)
	}
}

// TestChartsNeverSqueezed: at any size, in a running group with a
// baseline and in a soak with one, a chart shown has four rows or more;
// a soak that shows any chart shows its RSS, and a baseline pane that
// shows any row shows the soak's RSS row.
func TestChartsNeverSqueezed(t *testing.T) {
	for w := 40; w <= 160; w += 30 {
		for h := 12; h <= 44; h += 4 {
			run := newTestModel(t, w, h)
			running(t, run, engine.StateRunning, true)
			for i, s := range []string{screen(run), screen(soakWithBaseline(t, w, h))} {
				for _, n := range chartRuns(s) {
					if n < minChartRows {
						t.Errorf("%dx%d: a chart of %d rows:\n%s", w, h, n, s)
					}
				}
				if i == 0 {
					continue
				}
				if len(chartRuns(s)) > 0 && !strings.Contains(s, "api RSS") {
					t.Errorf("%dx%d: a soak's charts without its RSS:\n%s", w, h, s)
				}
				if strings.Contains(s, "baseline G5") && !strings.Contains(s, "RSS MB/min") {
					t.Errorf("%dx%d: the baseline pane left the soak's RSS row out:\n%s", w, h, s)
				}
			}
		}
	}
}

// TestPaneCutKeepsRow: rows cut to fit keep the row asked for in the
// last place, and say how many are left out.
func TestPaneCutKeepsRow(t *testing.T) {
	rows := make([]paneRow, 9)
	for i := range rows {
		rows[i].Metric = string(rune('a' + i))
	}
	names := func(rs []paneRow) (s string) {
		for _, r := range rs {
			s += r.Metric
		}
		return s
	}
	for _, c := range []struct {
		room, keep int
		want       string
		more       int
	}{{9, 7, "abcdefghi", 0}, {5, 7, "abch", 5}, {5, 2, "abcd", 5}, {1, 7, "h", 8}, {2, -1, "a", 8}, {0, 7, "", 9}} {
		got, more := paneCut(rows, c.room, c.keep)
		if names(got) != c.want || more != c.more {
			t.Errorf("room %d keep %d: %q and %d more, want %q and %d", c.room, c.keep, names(got), more, c.want, c.more)
		}
	}
}
