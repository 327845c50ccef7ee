package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	artcompare "github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/engine"
)

// hostileSubject is a commit subject that would retitle the terminal,
// clear it and move the cursor if it reached the screen as it is.
const hostileSubject = "fix \x1b]0;pwned\x07the \x1b[2Jcache\r\x08 path"

// bisectRange is 8 commits: the good one, then 7 up to the bad one, the
// third of them with a hostile subject.
func bisectRange() BisectRange {
	r := BisectRange{Good: BisectCommit{Hash: "a1b2c3d4e5f6", Subject: "initial server"}, Group: "work", Figure: "p50",
		Runs: 3, GoodRuns: 5, MaxProbes: 5, Dir: "bench-results"}
	for k := 2; k <= 8; k++ {
		subject := fmt.Sprintf("commit %d: tune the handler", k)
		if k == 3 {
			subject = hostileSubject
		}
		r.Commits = append(r.Commits, BisectCommit{Hash: fmt.Sprintf("%012x", 0x3f2a9c1b7d20+k*0x1111), Subject: subject})
	}
	return r
}

// p50Row is the figure's row of a probe: base 5.31 ms, cur ms, verdict v.
func p50Row(cur float64, v string) *artcompare.Row {
	return &artcompare.Row{Group: "work", Step: "concurrency=4", Metric: artcompare.MetricP50, Base: 5.31, Current: cur,
		DeltaPct: (cur - 5.31) / 5.31 * 100, Verdict: v, LowerIsBetter: true, Test: artcompare.TestMannWhitney,
		P: 0.036, NBase: 5, NCurrent: 3}
}

// midBisection is the search after three verdicts: the good revision,
// commit 4 the same, commit 6 worse; commit 5 is being probed, its
// second run under way.
func midBisection() []BisectEvent {
	return []BisectEvent{
		bisectRange(),
		BisectProbe{Index: -1, N: 1, Runs: 5, Building: true},
		BisectProbe{Index: -1, N: 1, Runs: 5},
		BisectJudged{Index: -1, Outcome: BisectBase, Good: -1, Bad: 6, Left: 4},
		BisectProbe{Index: 2, N: 2, Runs: 3, Building: true},
		BisectJudged{Index: 2, Outcome: BisectSame, Row: p50Row(5.4, artcompare.Same), Good: 2, Bad: 6, Left: 2},
		BisectProbe{Index: 4, N: 3, Runs: 3, Building: true},
		BisectJudged{Index: 4, Outcome: BisectWorse, Row: p50Row(10.6, artcompare.Worse), Good: 2, Bad: 4, Left: 1},
		BisectProbe{Index: 3, N: 4, Runs: 3, Building: true},
		BisectProbe{Index: 3, N: 4, Runs: 3},
		BisectLive{Snap: engine.Snapshot{GroupID: "work", State: engine.StateRunning, Phase: engine.PhaseMeasure,
			Step: 1, Steps: 1, StepLabel: "concurrency=4 · run 2/3", Label: "concurrency=4",
			Elapsed: 600 * time.Millisecond, Planned: time.Second,
			Total: engine.Stats{Requests: 412, RPS: 687, P50: 10.4, P99: 12.9}}},
	}
}

// bisectEnded is midBisection with commit 5 judged worse: it is named.
func bisectEnded() []BisectEvent {
	row := p50Row(10.5, artcompare.Worse)
	cmp := &artcompare.Comparison{Rows: []artcompare.Row{*row}}
	return append(midBisection(),
		BisectJudged{Index: 3, Outcome: BisectWorse, Row: row, Good: 2, Bad: 3, Left: 0},
		BisectEnd{First: 3, Probes: 4, Cmp: cmp})
}

func newBisectTest(w, h int, events []BisectEvent) *BisectModel {
	m := NewBisectView(nil, nil)
	m.Update(sizeMsg(w, h))
	for _, ev := range events {
		m.Update(bisectMsg{ev: ev, ok: true})
	}
	return m
}

func bisectScreen(m *BisectModel) string { return ansi.Strip(m.View().Content) }

func TestGoldenBisect(t *testing.T) {
	for _, c := range []struct {
		name   string
		events []BisectEvent
		keys   []string
		want   []string
	}{
		{"bisect-probing", midBisection(), nil, []string{"▶", "run 2/3…", "✓", "✗", "good", "bad", "probe 4 of ≤4", "687 rps"}},
		{"bisect-done", bisectEnded(), nil, []string{"✗ first worse: 3f2a9c1bd275 commit 5", "+97.7%", "worse", "done"}},
		{"bisect-help", midBisection(), []string{"?"}, []string{"Keys and marks", "~skip", "benchtui.log"}},
	} {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 36}} {
			t.Run(fmt.Sprintf("%s-%dx%d", c.name, sz.w, sz.h), func(t *testing.T) {
				m := newBisectTest(sz.w, sz.h, c.events)
				for _, k := range c.keys {
					m.Update(press(k))
				}
				s := bisectScreen(m)
				checkShape(t, s, sz.w, sz.h)
				for _, want := range c.want {
					if !strings.Contains(s, want) {
						t.Errorf("no %q on screen:\n%s", want, s)
					}
				}
				golden(t, fmt.Sprintf("%s-%dx%d", c.name, sz.w, sz.h), s)
			})
		}
	}
}

// TestBisectViewShapes: every screen of the view is exactly the
// terminal's size, down to the smallest the console draws in.
func TestBisectViewShapes(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{40, 12}, {60, 20}, {80, 24}, {200, 50}} {
		for _, events := range [][]BisectEvent{nil, midBisection()[:5], midBisection(), bisectEnded()} {
			for _, keys := range [][]string{nil, {"?"}, {"q"}} {
				m := newBisectTest(sz.w, sz.h, events)
				for _, k := range keys {
					m.Update(press(k))
				}
				checkShape(t, bisectScreen(m), sz.w, sz.h)
			}
		}
	}
}

// TestBisectViewStripsControlBytes: a subject, a skip's reason and an
// error from outside reach the frame without a control byte: no title,
// no clear, no carriage return, no bell.
func TestBisectViewStripsControlBytes(t *testing.T) {
	events := append(midBisection()[:8], BisectJudged{Index: 1, Outcome: BisectSkipped, Why: "does not build: \x1b]8;;http://x\x07link\x1b]8;;\x07", Good: 2, Bad: 4},
		BisectEnd{First: -1, Err: "git: \x1b[31mred\x1b[0m\r\x07"})
	m := newBisectTest(120, 36, events)
	raw := m.View().Content
	for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "\r", "\x08"} {
		if strings.Contains(raw, bad) {
			t.Errorf("the frame holds %q:\n%q", bad, raw)
		}
	}
	s := bisectScreen(m)
	for _, want := range []string{"fix the cache path", "~skip", "does not build: link", "stopped: git: red"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q on screen:\n%s", want, s)
		}
	}
}

// TestBisectViewQuit: q mid-bisection asks, esc stays, q q cancels the
// bisection and quits once it closes its channel; after the end, q quits
// at once; any key leaves the help.
func TestBisectViewQuit(t *testing.T) {
	cancelled := make(chan struct{})
	m := NewBisectView(nil, func() { close(cancelled) })
	for _, ev := range midBisection() {
		m.Update(bisectMsg{ev: ev, ok: true})
	}
	m.Update(press("?"))
	if s := bisectScreen(m); !strings.Contains(s, "Keys and marks") {
		t.Fatalf("? shows no help:\n%s", s)
	}
	m.Update(press("x"))
	if _, cmd := m.Update(press("q")); cmd != nil || !strings.Contains(bisectScreen(m), "q again to stop it") {
		t.Fatalf("the first q did not ask:\n%s", bisectScreen(m))
	}
	m.Update(press("esc"))
	if s := bisectScreen(m); !strings.Contains(s, "still bisecting") || m.quitting {
		t.Fatalf("esc did not stay:\n%s", s)
	}
	m.Update(press("q"))
	_, cmd := m.Update(press("q"))
	if !m.quitting || !strings.Contains(bisectScreen(m), "quitting") {
		t.Fatalf("q q is not quitting:\n%s", bisectScreen(m))
	}
	startCmd(cmd)
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("q q did not cancel the bisection")
	}
	if _, cmd := m.Update(bisectMsg{ok: false}); cmd == nil || !isQuit(cmd) {
		t.Error("the bisection closed its channel, the view did not quit")
	}
	done := newBisectTest(80, 24, bisectEnded())
	if _, cmd := done.Update(press("q")); cmd == nil || !isQuit(cmd) {
		t.Error("q after the end did not quit at once")
	}
}

// startCmd runs cmd off the test's goroutine and, for a batch, each of
// its commands; nothing waits for them (a tick sleeps).
func startCmd(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		if b, ok := cmd().(tea.BatchMsg); ok {
			for _, c := range b {
				if c != nil {
					go c()
				}
			}
		}
	}()
}
