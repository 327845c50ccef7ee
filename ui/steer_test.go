package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
)

// countingEngine counts the sessions asked of it and starts none.
type countingEngine struct {
	mu   sync.Mutex
	asks int
}

func (c *countingEngine) Session(context.Context, *plan.Group) (*engine.Session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asks++
	return nil, fmt.Errorf("counting engine: no sessions")
}

func (c *countingEngine) RestartTarget(string) error { return nil }

func (c *countingEngine) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asks
}

// typeText sends each rune of text as a key, then lets the Cmds run.
func typeText(l *loop, text string) {
	l.t.Helper()
	for _, r := range text {
		l.send(press(string(r)), func() bool { return true })
	}
}

// TestNoteOnIdleGroupOwnsKeys: n on a group that never ran opens the note;
// "quick check" and "idle note" typed into it, then enter, neither quit
// nor start a run, and the notes wait for the group's next run.
func TestNoteOnIdleGroupOwnsKeys(t *testing.T) {
	eng := &countingEngine{}
	m := New(Config{Plan: testPlan(), Engine: eng, Dir: t.TempDir()})
	m.Update(sizeMsg(80, 24))
	l := newLoop(t, m)
	for _, text := range []string{"quick check", "idle note"} {
		l.send(press("n"), func() bool { return m.mode == modeNote })
		typeText(l, text)
		if m.mode != modeNote || m.note.Value() != text {
			t.Fatalf("after typing %q: mode %d, note %q; the modal must own every key", text, m.mode, m.note.Value())
		}
		l.send(press("enter"), func() bool { return m.mode == modeMain })
	}
	time.Sleep(50 * time.Millisecond) // any stray Cmd would have answered by now
	l.until(func() bool { return len(l.msgs) == 0 })
	if l.quits > 0 || m.quitting || eng.count() > 0 || m.groups[0].state != stateIdle {
		t.Errorf("quits %d, quitting %v, sessions asked %d, state %s: typed text ran as keys",
			l.quits, m.quitting, eng.count(), m.groups[0].state)
	}
	if got := m.groups[0].pending; len(got) != 2 || got[0] != "quick check" || got[1] != "idle note" {
		t.Errorf("pending notes %q, want both kept for the next run", got)
	}
	if !strings.Contains(m.status, "kept for its next run") {
		t.Errorf("status %q", m.status)
	}
	l.send(press("n"), func() bool { return m.mode == modeNote })
	l.send(press("q"), func() bool { return true })
	l.send(press("esc"), func() bool { return m.mode == modeMain })
	if len(m.groups[0].pending) != 2 || l.quits > 0 {
		t.Errorf("esc kept a note or q quit: pending %q, quits %d", m.groups[0].pending, l.quits)
	}
}

// TestNoteBeforeFirstRunGoesIntoIt runs a real session: a note written
// before the group's first run lands in that run's artifact.
func TestNoteBeforeFirstRunGoesIntoIt(t *testing.T) {
	m, dir := engineModel(t, "1s")
	l := newLoop(t, m)
	gr := m.groups[0]
	l.send(press("n"), func() bool { return m.mode == modeNote })
	typeText(l, "before the fix")
	l.send(press("enter"), func() bool { return len(gr.pending) == 1 })
	l.send(press("enter"), func() bool { return gr.state == stateDone && gr.last != nil && m.cfg.Sessions.pending() == 0 })
	if a := readOnly(t, dir); len(a.Notes) != 1 || !strings.Contains(a.Notes[0], "before the fix") {
		t.Errorf("notes %+v, want the note written before the run", a.Notes)
	}
	if len(gr.pending) != 0 {
		t.Errorf("pending %q after the run", gr.pending)
	}
}

// TestQuitAsksOnce: q mid-run asks; esc stays; q then q stops and quits.
func TestQuitAsksOnce(t *testing.T) {
	m := newTestModel(t, 80, 24)
	running(t, m, engine.StateRunning, false)
	if _, cmd := m.Update(press("q")); cmd != nil && isQuit(cmd) || m.quitting {
		t.Fatal("the first q mid-run quit")
	}
	if !m.confirmQuit || !strings.Contains(m.status, "q again to stop and save, esc to stay") {
		t.Fatalf("status %q, want the question", m.status)
	}
	m.Update(press("esc"))
	if m.confirmQuit || m.quitting {
		t.Fatal("esc did not keep the run")
	}
	m.Update(press("q"))
	m.Update(press("q"))
	if !m.quitting {
		t.Error("q, q did not quit")
	}
}

// isQuit reports whether cmd is tea.Quit itself.
func isQuit(cmd tea.Cmd) bool {
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

// endActive ends the running group's session as its channel closing would.
func endActive(t *testing.T, m *Model) {
	t.Helper()
	i := m.active
	m.Update(endedMsg{group: i, sess: testSession(t, m)})
}

// TestRunAllFollows: after a, the selection follows the running group,
// until the operator moves it.
func TestRunAllFollows(t *testing.T) {
	m := New(Config{Plan: testPlan(), Engine: &countingEngine{}, Dir: t.TempDir()})
	m.Update(sizeMsg(80, 24))
	m.Update(press("a"))
	if m.active != 0 || m.sel != 0 {
		t.Fatalf("active %d sel %d, want 0 0", m.active, m.sel)
	}
	endActive(t, m)
	if m.active != 1 || m.sel != 1 {
		t.Fatalf("after G1 ended: active %d sel %d, want the pane on G5", m.active, m.sel)
	}
	m.Update(press("k")) // the operator looks elsewhere
	endActive(t, m)
	if m.active != 2 || m.sel != 0 {
		t.Errorf("after a move: active %d sel %d, want the selection left where the operator put it", m.active, m.sel)
	}
}

// manyPlan is a plan of n groups.
func manyPlan(n int) *plan.Plan {
	p := &plan.Plan{Path: "bench.yaml", Version: 1}
	for i := range n {
		p.Groups = append(p.Groups, &plan.Group{ID: fmt.Sprintf("g%02d", i+1), Title: fmt.Sprintf("group number %d", i+1),
			Runner: "http", Duration: pdur(10 * time.Second)})
	}
	return p
}

func TestNavigationKeys(t *testing.T) {
	m := New(Config{Plan: manyPlan(40), Dir: "bench-results", Started: t0})
	m.Update(sizeMsg(80, 24))
	page := m.pageSize()
	for _, c := range []struct {
		key  tea.KeyPressMsg
		want int
	}{
		{tea.KeyPressMsg{Code: tea.KeyEnd}, 39}, {tea.KeyPressMsg{Code: tea.KeyHome}, 0},
		{press("G"), 39}, {press("g"), 0},
		{tea.KeyPressMsg{Code: tea.KeyPgDown}, page}, {tea.KeyPressMsg{Code: tea.KeyPgDown}, min(2*page, 39)},
		{tea.KeyPressMsg{Code: tea.KeyPgUp}, min(2*page, 39) - page}, {press("k"), min(2*page, 39) - page - 1},
	} {
		m.Update(c.key)
		if m.sel != c.want {
			t.Fatalf("after %s: sel %d, want %d", c.key, m.sel, c.want)
		}
	}
	if s := screen(m); !strings.Contains(s, " of 40") {
		t.Errorf("no scroll line:\n%s", s)
	}
}

// TestFilterOwnsKeys: / narrows the list as one types; q, a and enter
// typed into it are text; esc clears it.
func TestFilterOwnsKeys(t *testing.T) {
	eng := &countingEngine{}
	m := New(Config{Plan: manyPlan(40), Engine: eng, Dir: t.TempDir()})
	m.Update(sizeMsg(80, 24))
	m.Update(press("/"))
	for _, k := range []string{"q", "a", "3"} {
		m.Update(press(k))
	}
	if m.mode != modeFilter || m.quitting || m.active >= 0 || len(m.shown) != 0 {
		t.Fatalf("mode %d quitting %v active %d shown %v: the filter must own the keys", m.mode, m.quitting, m.active, m.shown)
	}
	for range 3 {
		m.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	for _, k := range []string{"3"} {
		m.Update(press(k))
	}
	m.Update(press("enter"))
	if m.mode != modeMain || len(m.shown) != 13 || m.groups[m.sel].g.ID != "g03" {
		t.Fatalf("filter 3: mode %d shown %v sel %d, want g03 g13 g23 g30…g39", m.mode, m.shown, m.sel)
	}
	m.Update(press("j"))
	if m.groups[m.sel].g.ID != "g13" {
		t.Errorf("j in the filtered list: %s, want g13", m.groups[m.sel].g.ID)
	}
	if s := screen(m); !strings.Contains(s, "/3 13 of 40") {
		t.Errorf("no filter line:\n%s", s)
	}
	m.Update(press("/"))
	m.Update(press("esc"))
	if len(m.shown) != 40 || m.filterText != "" {
		t.Errorf("esc left %d shown, filter %q", len(m.shown), m.filterText)
	}
	if eng.count() != 0 {
		t.Errorf("%d sessions asked while filtering", eng.count())
	}
}

// TestPickerLeavesOutCurrentRun reads real files: an artifact of the run
// in progress (started at or after it) is not offered as its baseline.
func TestPickerLeavesOutCurrentRun(t *testing.T) {
	dir := t.TempDir()
	for _, at := range []time.Time{t0.Add(-time.Hour), t0} {
		if _, err := artifacts.Write(dir, artifact(at, 6000, 1)); err != nil {
			t.Fatal(err)
		}
	}
	msg := listBaselines(dir, "G1", t0)().(pickerMsg)
	if len(msg.entries) != 1 || !msg.entries[0].started.Equal(t0.Add(-time.Hour)) {
		t.Errorf("entries %+v, want only the earlier run", msg.entries)
	}
}

// TestCompareFitsAt80: the compare view's steps table cuts no header at
// 80 columns.
func TestCompareFitsAt80(t *testing.T) {
	m := newTestModel(t, 80, 24)
	a := artifact(t0, 6000, 1)
	m.groups[0].setLast(a)
	m.Update(press("c"))
	s := screen(m)
	if !strings.Contains(s, "errors dropped") || strings.Contains(s, "dropp…") {
		t.Errorf("steps table cut at 80 columns:\n%s", s)
	}
}

// TestSummaryNamesArtifacts: the summary printed after the console names
// each run's group, ending and artifact.
func TestSummaryNamesArtifacts(t *testing.T) {
	m, dir := engineModel(t, "1s")
	l := newLoop(t, m)
	gr := m.groups[0]
	l.send(press("enter"), func() bool { return gr.state == stateDone && m.cfg.Sessions.pending() == 0 })
	lines := m.cfg.Sessions.Summary(200)
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "ping") || !strings.Contains(lines[0], dir) || !strings.Contains(lines[0], "✓ pass") {
		t.Errorf("summary %q, want ping, its ending and its artifact in %s", lines, dir)
	}
	narrow := m.cfg.Sessions.Summary(len1(lines[0]) - 1)
	if len(narrow) != 1 || !strings.HasPrefix(narrow[0], "ping  ✓ pass\n  "+dir) {
		t.Errorf("summary narrower than its line: %q, want the artifact on a line of its own", narrow)
	}
}

// TestGoldenManyGroups: 40 groups, the selection in the middle: the list
// says which it shows, down to 40x12.
func TestGoldenManyGroups(t *testing.T) {
	for _, sz := range append(sizes, struct {
		name string
		w, h int
	}{"40x12", 40, 12}) {
		t.Run(sz.name, func(t *testing.T) {
			m := New(Config{Plan: manyPlan(40), Dir: "bench-results", Started: t0})
			m.Update(sizeMsg(sz.w, sz.h))
			m.sel, m.dirty = 20, true
			s := screen(m)
			checkShape(t, s, sz.w, sz.h)
			if !strings.Contains(s, " of 40 ↑↓") && !strings.Contains(s, "–24/40 ↑↓") { // the short form at 40x12
				t.Errorf("no scroll line:\n%s", s)
			}
			golden(t, "many-"+sz.name, s)
		})
	}
}

// TestGoldenRunAll: after a, G1 ended and G5 runs: the pane shows G5.
func TestGoldenRunAll(t *testing.T) {
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			m := New(Config{Plan: testPlan(), Engine: &countingEngine{}, Dir: "bench-results", Started: t0})
			m.Update(sizeMsg(sz.w, sz.h))
			m.Update(press("a"))
			endActive(t, m)
			s := screen(m)
			checkShape(t, s, sz.w, sz.h)
			if !strings.Contains(s, "G5 — Sustained") || !strings.Contains(s, "+2 queued") {
				t.Errorf("the pane does not follow G5:\n%s", s)
			}
			golden(t, "runall-"+sz.name, s)
		})
	}
}

// runnersPlan has an SSE, a spawn and a shutdown group, as written.
func runnersPlan() *plan.Plan {
	return &plan.Plan{Path: "bench.yaml", Version: 1, Groups: []*plan.Group{
		{ID: "sse", Title: "SSE flood", Runner: "sse", Duration: pdur(10 * time.Second)},
		{ID: "cold", Title: "cold starts", Runner: "spawn", Raw: map[string]any{"spawn": map[string]any{"cycles": 30}}},
		{ID: "sd", Title: "SIGTERM under load", Runner: "shutdown", Raw: map[string]any{"shutdown": map[string]any{"after": "3s"}}},
	}}
}

// TestRunnerWords: SSE figures are events/s and gaps; spawn and shutdown
// say what they do, not "1 step of 0s".
func TestRunnerWords(t *testing.T) {
	m := New(Config{Plan: runnersPlan(), Dir: "bench-results", Started: t0})
	m.Update(sizeMsg(80, 24))
	for i, want := range []string{"ev/s gap50", "cold starts: 30 cycles, start to ready", "signal SIGTERM after 3s under load"} {
		m.sel, m.dirty = i, true
		s := screen(m)
		if !strings.Contains(s, want) || strings.Contains(s, "of 0s") {
			t.Errorf("%s: no %q, or a step of 0s:\n%s", m.groups[i].g.ID, want, s)
		}
	}
}

// TestByNameTable: d shows the live table by named request (the step's
// total first), with the names' own figures; d again goes back to step
// and tick.
func TestByNameTable(t *testing.T) {
	m := newTestModel(t, 80, 24)
	running(t, m, engine.StateRunning, false)
	snap := runningSnapshot(engine.StateRunning, false)
	snap.ByName = map[string]engine.Stats{
		"ping":          {RPS: 1500, P50: 0.4, P99: 1.2, Requests: 1500},
		"mixed-request": {RPS: 4400, P50: 5.1, P99: 9.8, Requests: 4400, Errors: 31},
	}
	m.Update(SnapshotMsg{Group: 0, Sess: m.groups[0].sess, Snap: snap})
	m.Update(press("d"))
	s := screen(m)
	for _, want := range []string{"mixed-request   4400  5.10", "ping            1500 0.400", "step            5912"} {
		if !strings.Contains(s, want) {
			t.Errorf("by-name table lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "tick ") {
		t.Errorf("the by-name table still shows the tick row:\n%s", s)
	}
	m.Update(press("d"))
	if s := screen(m); !strings.Contains(s, "tick   5900") || strings.Contains(s, "mixed-request") {
		t.Errorf("d again: want step and tick back:\n%s", s)
	}
}
