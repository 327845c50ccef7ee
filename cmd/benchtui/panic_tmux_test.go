package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// TestConsoleRunnerPanic runs, under tmux, a binary built with the test
// hooks on a group whose runner panics on its 200th operation: the console
// stays up and shows the panic and where it was, the step's figures are
// written with a failed "panic" check, and quitting leaves the terminal
// restored (no alternate screen) with exit 1, for the failed check.
func TestConsoleRunnerPanic(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := testbin.BuildTagged(t, ".", "testhooks")
	work := t.TempDir()
	plan := `version: 1
groups:
  - id: crash
    title: a runner with a bug
    runner: crash
    crash: {after: 200}
    load: {concurrency: 2}
    duration: 30s
`
	if err := os.WriteFile(filepath.Join(work, "bench.yaml"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &tmuxConsole{t: t, socket: fmt.Sprintf("benchtui-test-panic-%d", os.Getpid()), name: "console"}
	cmdline := fmt.Sprintf("NO_COLOR=1 %s; echo exit=$?; sleep 60", bin)
	if out, err := c.tmux("new-session", "-d", "-x", "120", "-y", "30", "-s", c.name, "-c", work, cmdline); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { c.tmux("kill-session", "-t", c.name) })
	c.waitFor("the group", `crash\s+idle`)
	c.send("Enter")
	c.waitFor("the panic shown and the figures written", `✗ panic: runtime error`, `index out of range \[200\]`,
		`crashWorker\)\.Do`, `crash: artifact bench-results/crash-`)
	c.send("q")
	c.waitFor("the console gone, exit 1 for the failed check", `exit=1`)
	if alt, _ := c.tmux("display", "-p", "-t", c.name, "#{alternate_on}"); strings.TrimSpace(alt) != "0" {
		t.Errorf("alternate screen %q after the console quit, want 0 (restored)", alt)
	}
	entries, err := artifacts.List(filepath.Join(work, "bench-results"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("artifacts: %v %v, want one", entries, err)
	}
	a, err := artifacts.Load(entries[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	st := a.Steps[0]
	var panicNote string
	for _, ch := range st.Checks {
		if ch.Name == "panic" && !ch.OK {
			panicNote = ch.Note
		}
	}
	// Each worker did 199 operations before the 200th panicked.
	if !strings.Contains(panicNote, "index out of range") || st.Requests < 199 || st.DurationS > 20 {
		t.Errorf("panic check %q, %d requests in %.1f s: want the panic named, the 199+ operations before it kept, the step cut short", panicNote, st.Requests, st.DurationS)
	}
}
