package ui

import (
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/engine"
)

// A group of two targets draws the first's RSS and fds charts, and t
// cycles to the second's (from its own samples), then back.
func TestDetailCyclesTargets(t *testing.T) {
	m := newTestModel(t, 120, 36)
	g := m.groups[0].g
	g.Targets = []string{"api", "db"}
	running(t, m, engine.StateRunning, false)
	for i := range 5 {
		snap := runningSnapshot(engine.StateRunning, false)
		snap.Others = []engine.NamedSample{{Name: "db", ProcSample: &engine.ProcSample{RSSMB: 200 + float64(i), WorkingSetMB: 150, FDs: 30 + i}}}
		m.Update(SnapshotMsg{Group: 0, Sess: m.groups[0].sess, Snap: snap})
	}
	view := screen(m)
	if !strings.Contains(view, "api RSS 41.6 MB +6.5±0.3/min") || !strings.Contains(view, "api fds 61 [1/2 t]") {
		t.Errorf("first target's charts not drawn:\n%s", view)
	}
	m.Update(press("t"))
	view = screen(m)
	if !strings.Contains(view, "db RSS 204 MB · working set 150 MB") || !strings.Contains(view, "db fds 34 [2/2 t]") || strings.Contains(view, "api RSS") {
		t.Errorf("t: second target's charts not drawn:\n%s", view)
	}
	checkShape(t, view, 120, 36)
	m.Update(press("t"))
	if view = screen(m); !strings.Contains(view, "api RSS 41.6 MB") {
		t.Errorf("t twice: back to the first target:\n%s", view)
	}
}
