package ui

import (
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/probe"
)

// TestGoldenProbes: each probe is a sparkline row with last/min/max, and
// a failing one shows its errors.
func TestGoldenProbes(t *testing.T) {
	for _, sz := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"120x36", 120, 36}} {
		t.Run(sz.name, func(t *testing.T) {
			m := newTestModel(t, sz.w, sz.h)
			running(t, m, engine.StateRunning, false)
			snap := runningSnapshot(engine.StateRunning, false)
			var backlog []float64
			for i := range 40 {
				backlog = append(backlog, float64(i*i))
			}
			snap.Probes = []probe.Live{
				{Name: "backlog", Values: backlog, Stats: artifacts.ProbeStats{Min: 0, Max: 1521, Last: 1521, Samples: 40}},
				{Name: "pending", Stats: artifacts.ProbeStats{Errors: 7}, LastErr: "deadline exceeded"},
			}
			m.Update(SnapshotMsg{Group: 0, Sess: m.groups[0].sess, Snap: snap})
			s := screen(m)
			checkShape(t, s, sz.w, sz.h)
			for _, want := range []string{"backlog ▁", "█ last 1521 · min 0 · max 1521", "pending", "no reads yet · 7 err"} {
				if !strings.Contains(s, want) {
					t.Errorf("no %q on screen", want)
				}
			}
			golden(t, "probes-"+sz.name, s)
		})
	}
}
