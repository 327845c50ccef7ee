package ui

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/benchtui/benchtui/artifacts"
	artcompare "github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestMain(m *testing.M) {
	time.Local = time.UTC // the goldens show local times
	os.Exit(m.Run())
}

func sizeMsg(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

// screen is the model's frame after a redraw, without styles.
func screen(m *Model) string {
	m.Update(frameMsg{})
	return ansi.Strip(m.View().Content)
}

// golden compares got with testdata/name.golden; -update rewrites it, and
// a mismatch leaves the output beside it as name.got.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -update)", err)
	}
	if string(want) != got {
		os.WriteFile(strings.TrimSuffix(path, ".golden")+".got", []byte(got), 0o644)
		t.Errorf("%s differs from %s; see %s.got", name, path, strings.TrimSuffix(path, ".golden"))
	}
}

var sizes = []struct {
	name string
	w, h int
}{{"80x24", 80, 24}, {"60x20", 60, 20}, {"120x36", 120, 36}}

// checkShape asserts the frame is exactly h lines of at most w columns.
func checkShape(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d wide, want <= %d: %q", i+1, n, w, l)
		}
	}
}

func TestGoldenIdle(t *testing.T) {
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			m := newTestModel(t, sz.w, sz.h)
			s := screen(m)
			checkShape(t, s, sz.w, sz.h)
			golden(t, "idle-"+sz.name, s)
		})
	}
}

// running puts G1 half way through a run with a baseline, compared.
func running(t testing.TB, m *Model, state engine.State, rising bool) {
	t.Helper()
	sess := testSession(t, m)
	m.active = 0
	m.Update(startedMsg{group: 0, sess: sess, at: t0})
	base := artifact(t0.Add(-time.Hour), 6100, 1.1)
	m.Update(baselineMsg{group: 0, path: "bench-results/G1-1796040000000.json", art: base})
	m.Update(SnapshotMsg{Group: 0, Sess: sess, Snap: runningSnapshot(state, rising)})
	cur := artifact(t0, 5400, 1.5)
	cmp := artcompare.Compare([]*artifacts.Artifact{base}, []*artifacts.Artifact{cur}, artcompare.CompareOptions{})
	m.Update(CompareMsg{Group: 0, Cmp: cmp})
	m.Update(statusMsg{text: "G1 running"})
}

func TestGoldenRunning(t *testing.T) {
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			m := newTestModel(t, sz.w, sz.h)
			running(t, m, engine.StateRunning, true)
			s := screen(m)
			checkShape(t, s, sz.w, sz.h)
			for _, want := range []string{"step 1/1 concurrency=8", " drop", "api RSS", "⚠ api RSS still rising", "worse", "┤"} {
				if !strings.Contains(s, want) {
					t.Errorf("no %q on screen", want)
				}
			}
			golden(t, "running-"+sz.name, s)
		})
	}
}

func TestGoldenPausedNoTarget(t *testing.T) {
	m := newTestModel(t, 80, 24)
	running(t, m, engine.StatePaused, false)
	snap := runningSnapshot(engine.StatePaused, false)
	snap.Target, snap.TargetName = nil, ""
	for i := range snap.Series {
		snap.Series[i].SelfMB = 30 + float64(i)/10
	}
	m.Update(SnapshotMsg{Group: 0, Sess: m.groups[0].sess, Snap: snap})
	s := screen(m)
	for _, want := range []string{"paused", "benchtui (self) RSS"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q on screen", want)
		}
	}
	golden(t, "paused-self-80x24", s)
}

// screenCases are the console's screens reached by keys from a running
// G1 (run) or an idle console, each golden at every size.
var screenCases = []struct {
	name string
	run  bool
	keys []string
}{
	{"help", true, []string{"?"}},
	{"compare", true, []string{"c"}},
	{"note", true, []string{"n", "l", "e", "a", "k"}},
	{"note-idle", false, []string{"n", "q", "u", "i", "c", "k"}},
	{"filter", false, []string{"/", "s", "w"}},
	{"quit-ask", true, []string{"q"}},
}

func TestGoldenScreens(t *testing.T) {
	for _, c := range screenCases {
		for _, sz := range sizes {
			t.Run(c.name+"-"+sz.name, func(t *testing.T) {
				m := newTestModel(t, sz.w, sz.h)
				if c.run {
					running(t, m, engine.StateRunning, false)
				}
				for _, k := range c.keys {
					m.Update(press(k))
				}
				s := screen(m)
				checkShape(t, s, sz.w, sz.h)
				golden(t, c.name+"-"+sz.name, s)
			})
		}
	}
}

func TestGoldenPicker(t *testing.T) {
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			m := newTestModel(t, sz.w, sz.h)
			m.Update(press("b"))
			m.Update(pickerMsg{entries: []pickEntry{
				{path: "bench-results/G1-1796049000000.json", started: t0.Add(-time.Hour), rps: 6100, p99: 7.2},
				{path: "bench-results/G1-1796045000000.json", started: t0.Add(-2 * time.Hour), rps: 5400, p99: 9.75, partial: true},
				{path: "bench-results/G1-1796041000000.json", started: t0.Add(-3 * time.Hour), bad: "damaged artifact"},
			}})
			m.Update(press("down"))
			s := screen(m)
			checkShape(t, s, sz.w, sz.h)
			golden(t, "picker-"+sz.name, s)
		})
	}
}
