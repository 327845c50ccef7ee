package ui

import (
	"errors"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/filewatch"
)

// TestWatchBuildFailureAndHistory: a failed build of the loop leaves a ✗
// mark and the compiler's last lines (control bytes stripped) under the
// strip; changes while a build runs are its own outputs, not a cycle;
// W turns the loop off.
func TestWatchBuildFailureAndHistory(t *testing.T) {
	m := newTestModel(t, 120, 36)
	ch := make(chan filewatch.Change, 1)
	m.cfg.Changes, m.cfg.WatchPaths = ch, []string{"src"}
	m.startWatch()
	m.render()
	if view := screen(m); !strings.Contains(view, "save a file under src to rebuild and rerun") {
		t.Fatalf("no watch line:\n%s", view)
	}
	m.watch.group, m.watch.building = 0, true
	m.Update(changeMsg{change: filewatch.Change{Paths: []string{"bin/server"}, N: 1}, ok: true})
	if m.watch.pending || m.watch.group != 0 {
		t.Fatalf("a change during the build started a cycle: %+v", m.watch)
	}
	tail := &lastLines{n: buildTailLines}
	tail.Write([]byte("# srv\n./main.go:12:15: syntax error: \x1b[31munexpected newline\x1b[m\n"))
	m.Update(rebuiltMsg{target: "api", err: errors.New("building api: exit status 1"), tail: tail.lines()})
	view := screen(m)
	for _, want := range []string{"watch ✗ build failed", "./main.go:12:15: syntax error: unexpected newline"} {
		if !strings.Contains(view, want) {
			t.Errorf("no %q on screen:\n%s", want, view)
		}
	}
	if strings.Contains(view, "\x1b[31m") || strings.Contains(view, "[31m") {
		t.Errorf("the compiler's escape codes reached the screen:\n%s", view)
	}
	m.Update(press("W"))
	if m.watch.on || !strings.Contains(screen(m), "watch off ✗ build failed") {
		t.Errorf("W did not turn the loop off:\n%s", screen(m))
	}
}
