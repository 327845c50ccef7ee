package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// TestRedrawCoalesced: snapshots only mark the frame dirty; it is drawn
// once per tick however many arrive, and one tick is armed at a time.
func TestRedrawCoalesced(t *testing.T) {
	m := newTestModel(t, 80, 24)
	running(t, m, engine.StateRunning, false)
	screen(m)
	before, frame := m.renders, m.View().Content
	sess := m.groups[0].sess
	ticks := 0
	for i := range 100 {
		snap := runningSnapshot(engine.StateRunning, false)
		snap.Total.Requests = int64(i)
		armed := m.tickArmed
		m.Update(SnapshotMsg{Group: 0, Sess: sess, Snap: snap})
		if !armed && m.tickArmed {
			ticks++
		}
	}
	if m.renders != before || m.View().Content != frame {
		t.Errorf("drew %d frames while snapshots arrived; want none before the tick", m.renders-before)
	}
	if ticks != 1 {
		t.Errorf("armed %d redraw ticks for 100 snapshots, want 1", ticks)
	}
	m.Update(frameMsg{})
	if m.renders != before+1 {
		t.Errorf("drew %d frames on the tick, want 1", m.renders-before)
	}
	m.Update(frameMsg{}) // nothing new: no redraw
	if m.renders != before+1 {
		t.Errorf("redrew a clean frame")
	}
}

func TestNavigateAndModes(t *testing.T) {
	m := newTestModel(t, 80, 24)
	m.Update(press("j"))
	m.Update(press("j"))
	if m.sel != 2 {
		t.Fatalf("sel %d after two j, want 2", m.sel)
	}
	m.Update(press("k"))
	m.Update(press("k"))
	m.Update(press("k"))
	if m.sel != 3 {
		t.Fatalf("sel %d after three k from 2, want 3 (wraps)", m.sel)
	}
	for _, c := range []struct {
		key  string
		want mode
	}{{"?", modeHelp}, {"x", modeMain}, {"c", modeCompare}, {"esc", modeMain}, {"b", modePicker}, {"esc", modeMain}} {
		m.Update(press(c.key))
		if m.mode != c.want {
			t.Fatalf("after %q mode %d, want %d", c.key, m.mode, c.want)
		}
	}
}

// TestKeysNeedARun: controls on a group that is not running say so and
// start nothing.
func TestKeysNeedARun(t *testing.T) {
	m := newTestModel(t, 80, 24)
	for _, k := range []string{"p", "e", "s", "x"} {
		m.status = ""
		m.Update(press(k))
		if !m.statusErr || !strings.Contains(m.status, "G1") {
			t.Errorf("%q on an idle group: status %q, want an error naming G1", k, m.status)
		}
	}
	m.Update(press("enter")) // no engine
	if m.groups[0].state != stateIdle {
		t.Errorf("enter without an engine: state %s", m.groups[0].state)
	}
}

func TestRebuildRefusals(t *testing.T) {
	m := newTestModel(t, 80, 24)
	m.Update(press("j"))
	m.Update(press("j")) // sweep: no target
	m.Update(press("r"))
	if !strings.Contains(m.status, "no target") {
		t.Errorf("rebuild without a target: %q", m.status)
	}
	m.sel = 0
	m.active = 1 // G5 runs on the same target
	m.Update(press("r"))
	if !strings.Contains(m.status, "stop the run") {
		t.Errorf("rebuild while the target is in use: %q", m.status)
	}
}

func TestQuitWhenIdle(t *testing.T) {
	m := newTestModel(t, 80, 24)
	cmd := m.quit()
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q with nothing running does not quit at once")
	}
}

func TestResample(t *testing.T) {
	xs := []float64{1, 9, 1, 1, 1, 1, 1, 7}
	got := resample(xs, 4)
	want := []float64{9, 1, 1, 7}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("resample %v = %v, want %v (maxima kept)", xs, got, want)
		}
	}
	if len(resample(xs, 20)) != len(xs) {
		t.Error("a short series is resampled")
	}
}

// fakeEngine starts nothing and records restarts.
type fakeEngine struct{ restarted []string }

func (f *fakeEngine) Session(context.Context, *plan.Group) (*engine.Session, error) {
	return nil, errors.New("fake engine: no sessions")
}

func (f *fakeEngine) RestartTarget(name string) error {
	f.restarted = append(f.restarted, name)
	return nil
}

// TestRebuild runs the target's build command with its output in the log,
// then restarts the target.
func TestRebuild(t *testing.T) {
	eng := &fakeEngine{}
	var log testbin.Buffer
	plan := testPlan()
	plan.Targets["api"].Build = []string{"echo", "building api"}
	m := New(Config{Plan: plan, Engine: eng, Log: &log, Dir: t.TempDir()})
	l := newLoop(t, m)
	l.send(press("r"), func() bool { return m.rebuilding == "" && strings.Contains(m.status, "rebuilt") })
	if len(eng.restarted) != 1 || eng.restarted[0] != "api" {
		t.Errorf("restarted %v, want [api]", eng.restarted)
	}
	if !strings.Contains(log.String(), "building api") {
		t.Errorf("build output not in the log:\n%s", log.String())
	}
	if m.rebuilt["api"] == "" {
		t.Error("no note kept for the next session on api")
	}
}

// TestStaleComparisonDropped: a comparison against a baseline the
// operator has since replaced is not shown.
func TestStaleComparisonDropped(t *testing.T) {
	m := newTestModel(t, 80, 24)
	old, picked := artifact(t0.Add(-2*time.Hour), 6000, 1), artifact(t0.Add(-time.Hour), 5000, 1)
	m.Update(baselineMsg{group: 0, path: "new.json", art: picked, picked: true})
	m.groups[0].cmpBusy = true
	m.Update(CompareMsg{Group: 0, base: old})
	if gr := m.groups[0]; gr.cmp != nil || gr.cmpBusy {
		t.Errorf("cmp %v busy %v after a stale comparison, want none and not busy", gr.cmp, gr.cmpBusy)
	}
	m.Update(CompareMsg{Group: 0, base: picked})
	if m.groups[0].cmp == nil {
		t.Error("the current baseline's comparison was dropped")
	}
}
