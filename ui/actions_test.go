package ui

import (
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
)

// The latest action of the step shows under the charts, at 80x24 too.
func TestDetailShowsLatestAction(t *testing.T) {
	m := newTestModel(t, 80, 24)
	running(t, m, engine.StateRunning, false)
	snap := runningSnapshot(engine.StateRunning, false)
	snap.Events = []artifacts.Event{
		{T: 1.0, Kind: artifacts.EventAction, Note: "signal KILL to api: ok", Action: &artifacts.ActionResult{OK: true}},
		{T: 1.01, Kind: artifacts.EventTargetExited, Note: "api signal killed (by an action)"},
		{T: 1.2, Kind: artifacts.EventTargetRestarted, Note: "restart api: ok (api: pid 10 -> 11, ready)", Action: &artifacts.ActionResult{OK: true}},
	}
	m.Update(SnapshotMsg{Group: 0, Sess: m.groups[0].sess, Snap: snap})
	view := screen(m)
	if !strings.Contains(view, "action 2 at 1.2s: restart api: ok") {
		t.Errorf("no action line in\n%s", view)
	}
	checkShape(t, view, 80, 24)
}
