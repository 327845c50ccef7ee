package ui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// loop is a small Bubble Tea runtime for tests: it runs the model's Cmds
// on goroutines and feeds their messages back through Update.
type loop struct {
	t     *testing.T
	m     *Model
	msgs  chan tea.Msg
	quits int
}

func newLoop(t *testing.T, m *Model) *loop {
	l := &loop{t: t, m: m, msgs: make(chan tea.Msg, 64)}
	l.run(m.Init())
	return l
}

func (l *loop) run(c tea.Cmd) {
	if c == nil {
		return
	}
	go func() {
		switch msg := c().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				l.run(c)
			}
		case nil:
		default:
			l.msgs <- msg
		}
	}()
}

// send delivers msg, then pumps messages until cond holds.
func (l *loop) send(msg tea.Msg, cond func() bool) {
	l.t.Helper()
	_, c := l.m.Update(msg)
	l.run(c)
	l.until(cond)
}

func (l *loop) until(cond func() bool) {
	l.t.Helper()
	deadline := time.After(15 * time.Second)
	for !cond() {
		select {
		case msg := <-l.msgs:
			if _, ok := msg.(tea.QuitMsg); ok {
				l.quits++
				continue
			}
			_, c := l.m.Update(msg)
			l.run(c)
		case <-deadline:
			l.t.Fatalf("timed out; status %q, state %s", l.m.status, l.m.groups[0].state)
		}
	}
}

// enginePlan is one closed-loop group against srv.
func enginePlan(t *testing.T, url, duration string) *plan.Plan {
	t.Helper()
	yaml := "version: 1\ngroups:\n  - id: ping\n    title: loopback ping\n    runner: http\n" +
		"    http: {requests: [{url: \"" + url + "/ping\"}]}\n    load: {concurrency: 2}\n    duration: " + duration + "\n"
	return runnertest.ParsePlan(t, testRegistry, yaml, nil)
}

func engineModel(t *testing.T, duration string) (*Model, string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("pong")) }))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	plan := enginePlan(t, srv.URL, duration)
	run := engine.NewRun(plan, testRegistry, dir, "test")
	t.Cleanup(run.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m := New(Config{Plan: plan, Engine: run, Dir: dir, Context: ctx})
	m.Update(sizeMsg(100, 30))
	return m, dir
}

// TestRunToTheEnd runs a real session through the model: it ends, its
// artifact is written whole, and the next run compares with it.
func TestRunToTheEnd(t *testing.T) {
	m, dir := engineModel(t, "1s")
	l := newLoop(t, m)
	gr := m.groups[0]
	l.send(press("enter"), func() bool { return gr.state == stateDone && gr.last != nil && gr.last.Steps != nil })
	a := readOnly(t, dir)
	if a.Run.Partial || a.Steps[0].Requests == 0 {
		t.Errorf("artifact partial=%v requests=%d, want a whole run", a.Run.Partial, a.Steps[0].Requests)
	}
	first := gr.sess
	l.send(press("enter"), func() bool {
		return gr.sess != first && gr.state == stateDone && m.cfg.Sessions.pending() == 0 && gr.base != nil && gr.cmp != nil && !gr.cmpBusy
	})
	if len(gr.cmp.Rows) == 0 {
		t.Errorf("second run not compared with the first: %+v", gr.cmp)
	}
}

// TestQuitMidRun: pause, extend and a note land in the artifact, and q
// asks, then q again stops the session and writes it, partial, before
// quitting.
func TestQuitMidRun(t *testing.T) {
	m, dir := engineModel(t, "30s")
	l := newLoop(t, m)
	gr := m.groups[0]
	l.send(press("enter"), func() bool { return gr.seen && gr.snap.Phase == engine.PhaseMeasure })
	l.send(press("p"), func() bool { return gr.state == statePaused })
	l.send(press("p"), func() bool { return gr.state == stateRunning })
	l.send(press("e"), func() bool { return strings.Contains(m.status, "e added +") })
	l.send(press("n"), func() bool { return m.mode == modeNote })
	for _, r := range "fixed" {
		l.send(press(string(r)), func() bool { return true })
	}
	l.send(press("enter"), func() bool { return strings.Contains(m.status, "note added") })
	l.send(press("q"), func() bool { return m.confirmQuit && strings.Contains(m.status, "q again") })
	l.send(press("q"), func() bool { return l.quits > 0 })
	a := readOnly(t, dir)
	s := a.Steps[0]
	if !a.Run.Partial || s.PausedS <= 0 || len(a.Notes) != 1 {
		t.Errorf("partial=%v paused_s=%v notes=%q, want partial, paused, one note", a.Run.Partial, s.PausedS, a.Notes)
	}
	kinds := map[string]bool{}
	for _, e := range s.Events {
		kinds[e.Kind] = true
	}
	for _, k := range []string{"paused", "resumed", "extended", "note", "stopped"} {
		if !kinds[k] {
			t.Errorf("no %s event in %+v", k, s.Events)
		}
	}
}

// readOnly loads the one artifact in dir.
func readOnly(t *testing.T, dir string) *artifacts.Artifact {
	t.Helper()
	entries, err := artifacts.List(dir)
	if err != nil || len(entries) == 0 {
		names, _ := os.ReadDir(dir)
		t.Fatalf("no artifact in %s (%v): %v", dir, err, names)
	}
	a, err := artifacts.Load(entries[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(entries[0].Path) != dir {
		t.Errorf("artifact written to %s", entries[0].Path)
	}
	return a
}
