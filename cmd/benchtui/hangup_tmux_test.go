//go:build linux

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// TestConsoleSignalsAreRecorded: the terminal going away (tmux kills the
// window: SIGHUP) or a SIGTERM mid-run stops the run and writes it,
// partial, with the signal as the stopped event's reason, not "quit".
// Linux only: it finds the console's process in /proc.
func TestConsoleSignalsAreRecorded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, why string }{{"hangup", "signal hangup"}, {"term", "signal terminated"}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cwd := filepath.Join(t.TempDir(), "work")
			con := startConsole(t, "sig-"+c.name, cwd, "--duration 40s", 100, 30)
			con.waitFor("the groups", `ping\s+idle`)
			con.send("Enter")
			con.waitFor("ping measuring", `measure`)
			if c.name == "hangup" {
				con.tmux("kill-session", "-t", con.name)
			} else {
				pid := consolePID(t, con)
				if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			a := awaitArtifact(t, filepath.Join(cwd, "bench-results"))
			e := artifacts.Outcome(a)
			if !a.Run.Partial || !e.Stopped || e.StoppedWhy != c.why {
				t.Errorf("partial %v, stopped %v (%q), want a partial run stopped by %q", a.Run.Partial, e.Stopped, e.StoppedWhy, c.why)
			}
		})
	}
}

// consolePID is the pid of c's console (not its demo server).
func consolePID(t *testing.T, c *tmuxConsole) int {
	t.Helper()
	for pid, line := range processesUnder(t, c.pane, benchtuiBinary(t)) {
		if !strings.Contains(line, "demo-target") {
			return pid
		}
	}
	t.Fatalf("no console process under the pane %s", c.pane)
	return 0
}

// awaitArtifact waits up to 20 s for the one artifact in dir to be
// readable.
func awaitArtifact(t *testing.T, dir string) *artifacts.Artifact {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if entries, err := artifacts.List(dir); err == nil && len(entries) == 1 {
			if a, err := artifacts.Load(entries[0].Path); err == nil {
				return a
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no artifact in %s", dir)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
