package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
)

// TestEverySizeFits: in every mode and at many sizes the frame is exactly
// the terminal's height and no line is wider than it; a resize redraws at
// once.
func TestEverySizeFits(t *testing.T) {
	m := newTestModel(t, 120, 36)
	running(t, m, engine.StateRunning, true)
	for _, keys := range [][]string{nil, {"?"}, {"c"}, {"b"}, {"n"}, {"/", "g"}} {
		for _, k := range keys {
			m.Update(press(k))
		}
		for w := 40; w <= 200; w += 23 {
			for h := 12; h <= 60; h += 7 {
				m.Update(sizeMsg(w, h))
				checkShape(t, ansi.Strip(m.View().Content), w, h)
			}
		}
		m.Update(press("esc"))
	}
	m.Update(sizeMsg(30, 8))
	if s := m.View().Content; !strings.Contains(s, "too small") {
		t.Errorf("30x8: %q", s)
	}
}

// TestShutdownWritesPartial: what the caller runs on every way out stops
// a running session and writes its artifact, partial, with the reason.
func TestShutdownWritesPartial(t *testing.T) {
	m, dir := engineModel(t, "30s")
	reg := m.cfg.Sessions
	sess, err := m.cfg.Engine.Session(context.Background(), m.cfg.Plan.Groups[0])
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(sess)
	sess.Start(context.Background())
	for snap := range sess.Snapshots() {
		if snap.Phase == engine.PhaseMeasure && snap.Total.Requests > 0 {
			break
		}
	}
	paths, errs := reg.Shutdown("console panic", 5*time.Second)
	if len(paths) != 1 || len(errs) != 0 {
		t.Fatalf("paths %v errs %v", paths, errs)
	}
	a := readOnly(t, dir)
	evs := a.Steps[0].Events
	if !a.Run.Partial || len(evs) == 0 || evs[len(evs)-1].Note != "console panic" {
		t.Errorf("partial=%v events %+v, want partial, stopped by console panic", a.Run.Partial, evs)
	}
	if paths, _ := reg.Shutdown("again", time.Second); len(paths) != 0 {
		t.Errorf("a second shutdown rewrote %v", paths)
	}
}

// TestPickerListsTheGroupsArtifacts reads real files: only the group's,
// newest first, each with its headline.
func TestPickerListsTheGroupsArtifacts(t *testing.T) {
	dir := t.TempDir()
	for i, rps := range []float64{5000, 6000} {
		if _, err := artifacts.Write(dir, artifact(t0.Add(time.Duration(i)*time.Hour), rps, 1)); err != nil {
			t.Fatal(err)
		}
	}
	other := artifact(t0, 1, 1)
	other.Group.ID = "G5"
	artifacts.Write(dir, other)
	msg := listBaselines(dir, "G1", time.Time{})().(pickerMsg)
	if msg.err != nil || len(msg.entries) != 2 {
		t.Fatalf("entries %+v err %v, want the two G1 artifacts", msg.entries, msg.err)
	}
	if e := msg.entries[0]; e.rps != 6000 || e.p99 != 6.5 || !e.started.Equal(t0.Add(time.Hour)) {
		t.Errorf("newest entry %+v, want 6000 rps, p99 6.5, an hour after t0", e)
	}
	m := New(Config{Plan: testPlan(), Dir: dir})
	m.Update(press("b"))
	m.Update(msg)
	m.Update(press("down"))
	_, cmd := m.Update(press("enter"))
	l := newLoop(t, m)
	l.run(cmd)
	l.until(func() bool { return m.groups[0].basePicked })
	if m.groups[0].basePath != msg.entries[1].path || m.groups[0].base.Steps[0].ThroughputRPS != 5000 {
		t.Errorf("picked %s", m.groups[0].basePath)
	}
}

// TestDefaultBaselineSkipsPartialRun reads real files: a newer partial G1
// run (stopped part way) is the group's last result on the list, but the
// default baseline is the newest whole run before it.
func TestDefaultBaselineSkipsPartialRun(t *testing.T) {
	dir := t.TempDir()
	whole := artifact(t0.Add(-2*time.Hour), 6000, 1)
	cut := artifact(t0.Add(-time.Hour), 900, 4)
	cut.Run.Partial = true
	cut.Steps[0].Events = []artifacts.Event{{T: 3, Kind: artifacts.EventStopped, Note: "quit"}}
	wholePath, err := artifacts.Write(dir, whole)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := artifacts.Write(dir, cut); err != nil {
		t.Fatal(err)
	}
	m := New(Config{Plan: testPlan(), Dir: dir, Started: t0})
	m.Update(sizeMsg(80, 24))
	l := newLoop(t, m)
	l.run(m.Init())
	l.until(func() bool { return m.groups[0].base != nil })
	gr := m.groups[0]
	if gr.basePath != wholePath || gr.base.Run.Partial || gr.base.Steps[0].ThroughputRPS != 6000 {
		t.Errorf("baseline %s (partial %v), want the whole run %s", gr.basePath, gr.base.Run.Partial, wholePath)
	}
	if gr.last == nil || !gr.last.Run.Partial {
		t.Fatalf("last result %v, want the newer partial run", gr.last)
	}
	if row := groupRow(screen(m), "G1"); row != "▸ G1 stopped" {
		t.Errorf("list row %q, want the partial run's ending", row)
	}
}
