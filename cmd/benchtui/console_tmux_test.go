package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

func TestConsoleWithoutTerminalExits2(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := cmdConsole(context.Background(), nil, &out, &errb); code != exitUsage {
		t.Fatalf("exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(errb.String(), "no terminal on stdout; use `benchtui run`") {
		t.Errorf("stderr %q", errb.String())
	}
}

// tmuxConsole is the real binary running under a private tmux server.
type tmuxConsole struct {
	t      *testing.T
	socket string
	name   string
	// pane is the pid of the pane's shell, whose descendants are the
	// console's processes (startConsole sets it).
	pane string
	// within bounds each waitFor; zero means 45 s (a loaded machine builds
	// and starts a watched server in 20 s).
	within time.Duration
}

func (c *tmuxConsole) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", c.socket}, args...)...).CombinedOutput()
	return string(out), err
}

func (c *tmuxConsole) capture() string {
	out, _ := c.tmux("capture-pane", "-p", "-t", c.name)
	return out
}

func (c *tmuxConsole) send(keys string) {
	c.t.Helper()
	if out, err := c.tmux("send-keys", "-t", c.name, keys); err != nil {
		c.t.Fatalf("send-keys %s: %v %s", keys, err, out)
	}
}

// sendText types text literally.
func (c *tmuxConsole) sendText(text string) {
	c.t.Helper()
	if out, err := c.tmux("send-keys", "-t", c.name, "-l", text); err != nil {
		c.t.Fatalf("send-keys -l %q: %v %s", text, err, out)
	}
}

// waitFor polls the screen until every pattern matches.
func (c *tmuxConsole) waitFor(what string, patterns ...string) string {
	c.t.Helper()
	within := c.within
	if within == 0 {
		within = 45 * time.Second
	}
	deadline := time.Now().Add(within)
	for {
		screen := c.capture()
		ok := true
		for _, p := range patterns {
			ok = ok && regexp.MustCompile(p).MatchString(screen)
		}
		if ok {
			return screen
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("waiting for %s (%q); screen:\n%s", what, patterns, screen)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// TestConsoleUnderTmux drives the real binary on the demo plan: run a
// group, pause, resume, extend, quit mid-step (q asks once, esc stays, q
// q quits); the summary names the artifact, which must be partial, with
// the pause and the extension, and the console's processes (its own and
// the demo server's, found under its tmux pane) gone.
func TestConsoleUnderTmux(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("finds the demo server's processes in /proc: Linux only")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	tmp := t.TempDir()
	bin := benchtuiBinary(t)
	cwd := filepath.Join(tmp, "work") // no bench.yaml: the demo plan
	os.Mkdir(cwd, 0o755)
	c := &tmuxConsole{t: t, socket: fmt.Sprintf("benchtui-test-%d", os.Getpid()), name: "console"}
	cmdline := "NO_COLOR=1 " + bin + " --duration 40s; echo exit=$?; sleep 60"
	if out, err := c.tmux("new-session", "-d", "-x", "100", "-y", "30", "-s", c.name, "-c", cwd, cmdline); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { c.tmux("kill-session", "-t", c.name) })
	pane, _ := c.tmux("display-message", "-p", "-t", c.name, "#{pane_pid}")

	c.waitFor("the groups", `ping\s+idle`, `work-open\s+idle`, `leak-soak`)
	c.send("Enter")
	c.waitFor("a p99 figure and a sparkline", `p50/p99 ms \(log\) [0-9.]+/[0-9.]+`, `step\s+[0-9.]+k?\s+[0-9.]+`, `[┤┼]`, `measure`)
	procs := processesUnder(t, strings.TrimSpace(pane), bin)
	if len(procs) < 2 {
		t.Fatalf("processes of %s under the pane: %v, want the console and its demo server", bin, procs)
	}
	c.send("p")
	c.waitFor("paused", `ping\s+paused`)
	time.Sleep(300 * time.Millisecond)
	c.send("p")
	c.waitFor("running again", `ping\s+running`)
	c.send("e")
	c.waitFor("extended", `e added \+10s`)
	c.send("q")
	c.waitFor("the question", `run in progress: q again to stop and save, esc to stay`)
	c.send("Escape")
	c.waitFor("still running after esc", `still running`, `ping\s+running`)
	c.send("q")
	c.waitFor("the question again", `q again to stop and save`)
	c.send("q")
	c.waitFor("the summary with the artifact after the terminal is restored",
		`exit=0`, `benchtui: 1 run`, `ping\s+stopped \(quit\)\s+bench-results/ping-[0-9]+\.json \(partial\)`)

	a := partialArtifact(t, filepath.Join(cwd, "bench-results"))
	s := a.Steps[0]
	if s.PausedS <= 0 {
		t.Errorf("paused_s %v, want > 0", s.PausedS)
	}
	if !hasEvent(s, artifacts.EventExtended) || !hasEvent(s, artifacts.EventStopped) {
		t.Errorf("events %+v, want extended and stopped", s.Events)
	}
	if log, err := os.ReadFile(filepath.Join(cwd, "bench-results", "benchtui.log")); err != nil || !strings.Contains(string(log), "session started") {
		t.Errorf("console log: %v\n%s", err, log)
	}
	assertAllGone(t, procs)
}

// TestConsoleNoteAndRunAllUnderTmux: a note typed on an idle group
// ("quick check", "idle note") neither quits the console nor starts a
// run; then run all on the filtered list moves the pane to each group as
// it runs.
func TestConsoleNoteAndRunAllUnderTmux(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	cwd := filepath.Join(t.TempDir(), "work")
	os.Mkdir(cwd, 0o755)
	c := &tmuxConsole{t: t, socket: fmt.Sprintf("benchtui-test-note-%d", os.Getpid()), name: "console"}
	// Runs of 6 s: q must reach h3-ping's run while it lasts (at load 20
	// a 3 s run had ended first).
	cmdline := "NO_COLOR=1 " + benchtuiBinary(t) + " --duration 6s; echo exit=$?; sleep 60"
	if out, err := c.tmux("new-session", "-d", "-x", "100", "-y", "30", "-s", c.name, "-c", cwd, cmdline); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { c.tmux("kill-session", "-t", c.name) })
	c.waitFor("the groups", `ping\s+idle`, `h3-ping\s+idle`)
	for _, text := range []string{"quick check", "idle note"} {
		c.send("n")
		c.waitFor("the note modal", `note for ping's next run`)
		c.sendText(text)
		c.waitFor("the text in the modal", "> "+text)
		c.send("Enter")
		c.waitFor("the note kept", `ping: note kept for its next run`)
	}
	time.Sleep(time.Second) // a run the text started, or a quit, would show by now
	c.waitFor("nothing started, nothing quit", `ping\s+idle`, `work-open\s+idle`)
	if screen := c.capture(); strings.Contains(screen, "exit=") || strings.Contains(screen, "running") {
		t.Fatalf("typed text acted as keys:\n%s", screen)
	}

	c.send("/")
	c.sendText("ping")
	c.send("Enter")
	c.waitFor("the filtered list", `/ping 2 of [0-9]+`)
	c.send("a")
	c.waitFor("ping running in the pane", `ping — Closed loop on /ping .* running`)
	c.waitFor("the pane following h3-ping", `▸ h3-ping\s+running`, `h3-ping — HTTP/3 GET /ping .* running`)
	c.send("q")
	c.waitFor("the question", `q again to stop and save`)
	c.send("q")
	c.waitFor("both runs in the summary", `exit=0`, `benchtui: 2 runs`, `ping\s+.*bench-results/ping-[0-9]+\.json`,
		`h3-ping\s+.*bench-results/h3-ping-[0-9]+\.json \(partial\)`)
	entries, err := artifacts.List(filepath.Join(cwd, "bench-results"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if a, err := artifacts.Load(e.Path); err == nil && a.Group.ID == "ping" {
			if got := strings.Join(a.Notes, "|"); !strings.Contains(got, "quick check") || !strings.Contains(got, "idle note") {
				t.Errorf("ping's notes %q, want the two typed before it ran", a.Notes)
			}
			return
		}
	}
	t.Errorf("no ping artifact in %v", entries)
}

func partialArtifact(t *testing.T, dir string) *artifacts.Artifact {
	t.Helper()
	entries, err := artifacts.List(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("artifacts in %s: %v %v", dir, entries, err)
	}
	a, err := artifacts.Load(entries[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Run.Partial || a.Group.ID != "ping" || len(a.Steps) != 1 {
		t.Fatalf("artifact %s: partial=%v group=%s steps=%d, want a partial ping", entries[0].Path, a.Run.Partial, a.Group.ID, len(a.Steps))
	}
	return a
}

func hasEvent(s artifacts.Step, kind string) bool {
	for _, e := range s.Events {
		if e.Kind == kind {
			return true
		}
	}
	return false
}

// TestConsoleOutputNotAFolderExits2: the console checks its artifacts
// folder before it opens, so an export on quit cannot be lost to it.
func TestConsoleOutputNotAFolderExits2(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	file := filepath.Join(t.TempDir(), "results")
	os.WriteFile(file, []byte("not a folder"), 0o644)
	c := &tmuxConsole{t: t, socket: fmt.Sprintf("benchtui-test-out-%d", os.Getpid()), name: "console"}
	cmdline := fmt.Sprintf("%s -o %s; echo exit=$?; sleep 60", benchtuiBinary(t), file)
	if out, err := c.tmux("new-session", "-d", "-x", "200", "-y", "30", "-s", c.name, cmdline); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { c.tmux("kill-session", "-t", c.name) })
	c.waitFor("exit 2 naming the file", `exit=2`, regexp.QuoteMeta("artifacts folder "+file))
}

// TestConsoleLostExportExits1: when the export on quit fails (the folder
// was replaced by a file mid-step) the console says so and exits 1.
func TestConsoleLostExportExits1(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	tmp := t.TempDir()
	out := filepath.Join(tmp, "results")
	c := &tmuxConsole{t: t, socket: fmt.Sprintf("benchtui-test-lost-%d", os.Getpid()), name: "console"}
	cmdline := fmt.Sprintf("NO_COLOR=1 %s -o %s --duration 40s; echo exit=$?; sleep 60", benchtuiBinary(t), out)
	if out, err := c.tmux("new-session", "-d", "-x", "200", "-y", "30", "-s", c.name, "-c", tmp, cmdline); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { c.tmux("kill-session", "-t", c.name) })
	c.waitFor("the groups", `ping\s+idle`)
	c.send("Enter")
	c.waitFor("the step measuring", `measure`)
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(out, []byte("in the way"), 0o644)
	c.send("q")
	c.waitFor("the question", `q again to stop`)
	c.send("q")
	c.waitFor("exit 1 naming the folder", `exit=1`, `exporting ping`)
}
