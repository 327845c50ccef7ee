package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// startConsole runs the real binary with args under a private tmux
// server in a w x h window, in the folder cwd (made here; without a
// bench.yaml the console opens the demo plan). Once it exits the window
// shows "exit=CODE". It skips the test without tmux.
func startConsole(t *testing.T, tag, cwd, args string, w, h int) *tmuxConsole {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &tmuxConsole{t: t, socket: fmt.Sprintf("benchtui-test-%s-%d", tag, os.Getpid()), name: "console"}
	cmdline := "NO_COLOR=1 " + benchtuiBinary(t) + " " + args + "; echo exit=$?; sleep 60"
	if out, err := c.tmux("new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-s", c.name, "-c", cwd, cmdline); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	pane, _ := c.tmux("display-message", "-p", "-t", c.name, "#{pane_pid}")
	c.pane = strings.TrimSpace(pane)
	t.Cleanup(func() {
		left := treeOf(t, c.pane)
		c.tmux("kill-session", "-t", c.name)
		waitGone(left, 15*time.Second) // the console writes its artifacts on the hangup
	})
	return c
}

// TestNoteInEveryViewUnderTmux drives the real binary mid-run: n in the
// compare view and in the baseline picker opens the note over that view,
// "qqq" typed into it is text (it neither closes the view nor quits), and
// enter comes back to the view; each view's footer lists its own keys.
// Then esc and q sent in one write (which the terminal reader takes as
// alt+q) leave the picker and ask to quit. Both notes are in the artifact.
func TestNoteInEveryViewUnderTmux(t *testing.T) {
	t.Parallel()
	cwd := filepath.Join(t.TempDir(), "work")
	c := startConsole(t, "keys", cwd, "--duration 40s", 100, 30)
	c.waitFor("the groups", `ping\s+idle`)
	c.send("Enter")
	c.waitFor("ping measuring", `measure`)

	c.send("c")
	c.waitFor("the compare view and its keys", `Compare ping`, `↑/↓ scroll esc back n note / find`)
	c.send("n")
	c.waitFor("the note over compare", `note for ping: `, `Compare ping`)
	c.sendText("qqq")
	c.waitFor("the text in the note", `> qqq`)
	c.send("Enter")
	c.waitFor("back in compare, the note added", `Compare ping`, `ping: note added`)

	c.send("Escape")
	c.waitFor("the list", `▸ ping\s+running`)
	c.send("b")
	c.waitFor("the picker and its keys", `Baseline for ping`, `↑/↓ move enter pick esc back n note / find`)
	c.send("n")
	c.waitFor("the note over the picker", `note for ping: `, `Baseline for ping`)
	c.sendText("qqq in the picker")
	c.send("Enter")
	c.waitFor("back in the picker, the note added", `Baseline for ping`, `ping: note added`)

	if out, err := c.tmux("send-keys", "-t", c.name, "Escape", "q"); err != nil {
		t.Fatalf("send-keys Escape q: %v %s", err, out)
	}
	c.waitFor("esc left the picker, q asked", `run in progress: q again to stop and save`, `▸ ping\s+running`)
	if screen := c.capture(); strings.Contains(screen, "exit=") {
		t.Fatalf("quit without the question:\n%s", screen)
	}
	c.send("q")
	c.waitFor("the summary", `exit=0`, `ping\s+stopped \(quit\)`)

	entries, err := artifacts.List(filepath.Join(cwd, "bench-results"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("artifacts %v %v, want ping's", entries, err)
	}
	a, err := artifacts.Load(entries[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(a.Notes, "|"); !strings.Contains(got, "qqq") || !strings.Contains(got, "qqq in the picker") {
		t.Errorf("notes %q, want both typed in the views", a.Notes)
	}
}

// TestRestartWithoutBuildUnderTmux: the demo plan's target has no build:;
// r stops the demo server (the status line says it was not rebuilt) and
// the next run starts a new one.
func TestRestartWithoutBuildUnderTmux(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("finds the demo server's process in /proc: Linux only")
	}
	c := startConsole(t, "restart", filepath.Join(t.TempDir(), "work"), "--duration 1s", 100, 30)
	c.waitFor("the groups", `ping\s+idle`)
	c.send("Enter")
	c.waitFor("the run ended", `ping: artifact `)
	first := demoServers(t, c)
	if len(first) != 1 {
		t.Fatalf("demo servers %v after the run, want one", first)
	}
	c.send("r")
	c.waitFor("the restart said", `demo stopped, not rebuilt \(no build: in the plan\)`)
	if now := demoServers(t, c); len(now) != 0 {
		t.Fatalf("demo servers %v after r, want none until the next run", now)
	}
	c.send("Enter")
	deadline := time.Now().Add(20 * time.Second)
	for now := demoServers(t, c); len(now) != 1 || now[0] == first[0]; now = demoServers(t, c) {
		if time.Now().After(deadline) {
			t.Fatalf("demo servers %v after the next run started, want a new one (not %d)", now, first[0])
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// demoServers are the pids of the demo servers c's console runs.
func demoServers(t *testing.T, c *tmuxConsole) []int {
	var pids []int
	for pid, line := range processesUnder(t, c.pane, benchtuiBinary(t)) {
		if strings.Contains(line, "demo-target") {
			pids = append(pids, pid)
		}
	}
	return pids
}
