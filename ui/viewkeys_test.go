package ui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/benchtui/benchtui/runners/engine"
)

// footer is the frame's last line.
func footer(m *Model) string {
	s := screen(m)
	return s[strings.LastIndex(s, "\n")+1:]
}

// TestNoteFromEveryView: n in compare, the picker and help opens the note
// over that view; "qqq" typed into it is text, and enter or esc comes back
// to the view. Nothing quits, nothing runs.
func TestNoteFromEveryView(t *testing.T) {
	for _, c := range []struct {
		open  string
		view  mode
		title string
	}{{"c", modeCompare, "Compare G1"}, {"w", modeSlower, "What got slower in G1"}, {"b", modePicker, "Baseline for G1"}, {"?", modeHelp, "Keys"}} {
		eng := &countingEngine{}
		m := New(Config{Plan: testPlan(), Engine: eng, Dir: t.TempDir()})
		m.Update(sizeMsg(80, 24))
		l := newLoop(t, m)
		l.send(press(c.open), func() bool { return m.mode == c.view })
		for _, leave := range []string{"enter", "esc"} {
			l.send(press("n"), func() bool { return m.mode == modeNote })
			if s := screen(m); !strings.Contains(s, c.title) || !strings.Contains(s, "note for G1") {
				t.Errorf("%s: the note is not drawn over the view:\n%s", c.open, s)
			}
			typeText(l, "qqq")
			l.send(press(leave), func() bool { return m.mode == c.view })
		}
		if l.quits > 0 || m.quitting || eng.count() > 0 {
			t.Errorf("%s: quits %d, quitting %v, sessions %d: the note ran as keys", c.open, l.quits, m.quitting, eng.count())
		}
		if got := m.groups[0].pending; len(got) != 1 || got[0] != "qqq" {
			t.Errorf("%s: pending notes %q, want the one saved with enter", c.open, got)
		}
	}
}

// TestViewFooterListsItsKeys: compare, the picker and help each list
// their own keys, never the main screen's controls.
func TestViewFooterListsItsKeys(t *testing.T) {
	m := newTestModel(t, 80, 24)
	running(t, m, engine.StateRunning, false)
	main := footer(m)
	if !strings.Contains(main, "p pause") {
		t.Fatalf("main footer %q lacks its controls", main)
	}
	for _, c := range []struct{ open, want string }{
		{"c", "↑/↓ scroll esc back n note / find"},
		{"w", "↑/↓ scroll esc back n note / find"},
		{"b", "↑/↓ move enter pick esc back n note / find"},
		{"?", "↑/↓ scroll n note / find"},
	} {
		m.Update(press(c.open))
		f := footer(m)
		if !strings.Contains(f, c.want) || strings.Contains(f, "pause") || strings.Contains(f, "rebuild") {
			t.Errorf("after %s footer %q, want %q and none of the main screen's keys", c.open, f, c.want)
		}
		m.Update(press("esc"))
	}
}

// TestViewRefusesOtherKeys: a main-screen key in compare or the picker
// does nothing there and says so; the run is not paused.
func TestViewRefusesOtherKeys(t *testing.T) {
	m := newTestModel(t, 80, 24)
	running(t, m, engine.StateRunning, false)
	for _, c := range []struct{ open, view string }{{"c", "compare"}, {"w", "what got slower"}, {"b", "the picker"}} {
		m.Update(press(c.open))
		mode := m.mode
		if _, cmd := m.Update(press("p")); cmd != nil {
			t.Errorf("p in %s returned a command", c.view)
		}
		if m.mode != mode || m.status != "p does nothing in "+c.view+" (esc goes back)" {
			t.Errorf("p in %s: mode %d, status %q", c.view, m.mode, m.status)
		}
		m.Update(press("esc"))
	}
}

// TestFilterFromEveryView: / in compare, the picker and help opens the
// filter on the list; what is typed filters, it never runs as keys.
func TestFilterFromEveryView(t *testing.T) {
	for _, open := range []string{"c", "w", "b", "?"} {
		m := newTestModel(t, 80, 24)
		m.Update(press(open))
		m.Update(press("/"))
		if m.mode != modeFilter {
			t.Fatalf("/ after %s: mode %d, want the filter", open, m.mode)
		}
		for _, r := range "G5" {
			m.Update(press(string(r)))
		}
		m.Update(press("enter"))
		if m.mode != modeMain || m.filterText != "G5" || len(m.shown) != 1 {
			t.Errorf("after %s: mode %d, filter %q, shown %v", open, m.mode, m.filterText, m.shown)
		}
	}
}

// alt is what the terminal reader makes of esc followed at once by the
// key: alt+key without text.
func alt(s string) tea.KeyPressMsg {
	k := press(s)
	k.Mod |= tea.ModAlt
	k.Text = ""
	if r := []rune(s)[0]; len(s) == 1 && r >= 'A' && r <= 'Z' {
		k.Code, k.ShiftedCode, k.Mod = r+'a'-'A', r, k.Mod|tea.ModShift
	}
	return k
}

// TestEscThenLetter: an esc followed fast by a letter arrives as
// alt+letter; it is read as esc, then the letter.
func TestEscThenLetter(t *testing.T) {
	m := newTestModel(t, 80, 24)
	m.Update(press("c"))
	m.Update(alt("j")) // esc leaves compare, j selects the next group
	if m.mode != modeMain || m.sel != 1 {
		t.Errorf("esc+j in compare: mode %d, sel %d; want the list, the second group", m.mode, m.sel)
	}
	m.Update(alt("G")) // esc, then G: the last group
	if m.sel != len(m.groups)-1 {
		t.Errorf("esc+G: sel %d, want the last group", m.sel)
	}
	m.Update(press("n"))
	for _, r := range "half" {
		m.Update(press(string(r)))
	}
	m.Update(alt("b")) // alt+b moves a word back in the note: it stays open
	if m.mode != modeNote || m.note.Value() != "half" {
		t.Fatalf("alt+b in the note: mode %d, value %q; want the note open", m.mode, m.note.Value())
	}
	m.Update(alt("c")) // esc drops the note, c opens compare
	if m.mode != modeCompare || len(m.groups[m.sel].pending) != 0 || m.status != "note dropped" {
		t.Errorf("esc+c in the note: mode %d, pending %q; want the note dropped and compare open", m.mode, m.groups[m.sel].pending)
	}
}

// TestEscThenQWhileAsked: esc then q fast after the quit question stays
// (esc), then asks again (q); it never quits.
func TestEscThenQWhileAsked(t *testing.T) {
	m := newTestModel(t, 80, 24)
	running(t, m, engine.StateRunning, false)
	m.Update(press("q"))
	m.Update(alt("q"))
	if m.quitting || !m.confirmQuit {
		t.Errorf("q then esc+q: quitting %v, asking %v; want the question asked again", m.quitting, m.confirmQuit)
	}
}

// TestQuitKeepsTheCancelledQueue: a quit mid-run drops the queue; the
// groups it held are what Cancelled reports, in queue order.
func TestQuitKeepsTheCancelledQueue(t *testing.T) {
	m := newTestModel(t, 80, 24)
	running(t, m, engine.StateRunning, false)
	m.queue = []int{2, 1}
	for _, i := range m.queue {
		m.groups[i].state = stateQueued
	}
	want := m.groups[2].g.ID + "," + m.groups[1].g.ID
	if got := strings.Join(m.Cancelled(), ","); got != want {
		t.Errorf("before the quit Cancelled() = %q, want what is queued %q", got, want)
	}
	m.Update(press("ctrl+c"))
	if len(m.queue) != 0 || strings.Join(m.Cancelled(), ",") != want {
		t.Errorf("after ctrl+c: queue %v, Cancelled() %q, want %q", m.queue, m.Cancelled(), want)
	}
}

// TestPickerWithNoArtifacts reads a real, empty folder (and one that does
// not exist): the picker says there is nothing, not "reading…".
func TestPickerWithNoArtifacts(t *testing.T) {
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "never-made")} {
		m := New(Config{Plan: testPlan(), Dir: dir})
		m.Update(sizeMsg(80, 24))
		l := newLoop(t, m)
		l.send(press("b"), func() bool { return m.picker.read })
		if s := screen(m); !strings.Contains(s, "no artifacts of G1 in "+dir) || strings.Contains(s, "reading") {
			t.Errorf("picker on %s:\n%s", dir, s)
		}
	}
}

// TestRestartWithoutBuild: r on a target the console starts but that has
// no build: restarts it without building and says so; on an attached
// target (no command) it refuses, saying why.
func TestRestartWithoutBuild(t *testing.T) {
	eng := &fakeEngine{}
	pl := testPlan()
	pl.Targets["api"].Build = nil
	m := New(Config{Plan: pl, Engine: eng, Dir: t.TempDir()})
	l := newLoop(t, m)
	l.send(press("r"), func() bool { return m.rebuilding == "" && strings.Contains(m.status, "api stopped, not rebuilt") })
	if len(eng.restarted) != 1 || eng.restarted[0] != "api" || !strings.Contains(m.rebuilt["api"], "restarted (no build)") {
		t.Errorf("restarted %v, note %q; want api restarted once, said so to its next run", eng.restarted, m.rebuilt["api"])
	}
	pl.Targets["api"].Command, pl.Targets["api"].PID = nil, 4242
	m.Update(press("r"))
	if len(eng.restarted) != 1 || !m.statusErr || !strings.Contains(m.status, "attached") {
		t.Errorf("r on an attached target: restarted %v, status %q", eng.restarted, m.status)
	}
}
