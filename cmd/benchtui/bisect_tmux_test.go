package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// startBisectConsole makes a repository of 8 commits of the test server
// whose commit 5 makes /work slower, and runs the real binary's `bisect
// --console` on it from commit 1 (good) to 8 (bad), count runs of
// duration a revision, under a private tmux server; its temporary folders go to
// tmp. It returns the console, the repository, its hashes and its state
// before bisect started (repoState). It skips the test without git, go
// or tmux.
func startBisectConsole(t *testing.T, tag, tmp string, count int, duration string) (c *tmuxConsole, repo string, hashes []string, before string) {
	t.Helper()
	for _, tool := range []string{"git", "go", "tmux"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	addr, err := freeLoopbackAddr("tcp")
	if err != nil {
		t.Fatal(err)
	}
	repo, hashes = bisectRepo(t, 8, 5, 0, fmt.Sprintf(bisectPlan, addr))
	before = repoState(t, repo)
	c = &tmuxConsole{t: t, socket: fmt.Sprintf("benchtui-%s-%d", tag, os.Getpid()), name: "bisect", within: 40 * time.Second}
	cmdline := fmt.Sprintf("NO_COLOR=1 TMPDIR=%s GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local %s bisect bench.yaml -g work --good %s --bad %s"+
		" --count %d --duration %s --threshold 20%% -o %s --console; echo exit=$?; sleep 60",
		tmp, benchtuiBinary(t), hashes[0], hashes[7], count, duration, filepath.Join(tmp, "out"))
	if out, err := c.tmux("new-session", "-d", "-x", "100", "-y", "30", "-s", c.name, "-c", repo, cmdline); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { c.tmux("kill-session", "-t", c.name) })
	return c, repo, hashes, before
}

// TestBisectConsoleUnderTmux: the live view marks the probe in progress
// ▶ with its run, then names commit 5 with its worse p50 row; q closes
// it, and stdout has the result as without --console. The repository
// is as it was, and no progress line reached the screen (they are in
// the log).
func TestBisectConsoleUnderTmux(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	// 5 runs a revision: with 3, beside two burners, +63% was judged
	// "same" (3 against 5 runs reach p < 0.05 only fully apart).
	c, repo, hashes, before := startBisectConsole(t, "bisectui", tmp, 5, "400ms")
	c.waitFor("a probe running", `(?m)^▶\s+[0-9a-f]{12}\s.*run [1-5]/5…`, `▶ probe \d`, `p50 [0-9.]+ ms`)
	named := regexp.QuoteMeta(hashes[4][:12])
	screen := c.waitFor("commit 5 named", `✗ first worse: `+named+` commit 5`, `(?m)^✗\s+`+named+`\s+bad\s+commit 5\s+p50 ms .*worse`,
		`p50 ms\s+[0-9.]+\s+[0-9.]+\s+\+[0-9.]+%\s+worse`, `\bdone\b`)
	if strings.Contains(screen, "bisect: probe") || strings.Contains(screen, "work step") {
		t.Errorf("a progress line reached the view:\n%s", screen)
	}
	c.send("q")
	c.waitFor("the result on stdout after the view", `exit=0`, `first worse revision: `+hashes[4]+` "commit 5"`)
	if after := repoState(t, repo); after != before {
		t.Errorf("the user's repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if log, err := os.ReadFile(filepath.Join(tmp, "out", "benchtui.log")); err != nil || !strings.Contains(string(log), "bisect: probe 4: "+hashes[4][:12]) {
		t.Errorf("the log has no progress line of probe 4 (%v):\n%s", err, log)
	}
}

// TestBisectConsoleQuitUnderTmux: q during the first probe's runs asks
// first; q again stops the bisection, which removes its worktree (its
// temporary folder gone, git's list of worktrees as before) and exits 1
// saying it was interrupted.
func TestBisectConsoleQuitUnderTmux(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	// 5 runs of 0.5 s: q reaches the first probe while it runs.
	c, repo, _, before := startBisectConsole(t, "bisectquit", tmp, 5, "500ms")
	c.waitFor("the good revision's runs", `(?m)^▶\s+[0-9a-f]{12}\s.*run [1-5]/5…`)
	if trees, _ := filepath.Glob(filepath.Join(tmp, "benchtui-bisect-*")); len(trees) != 1 {
		t.Errorf("%d temporary worktrees during the probe, want 1: %q", len(trees), trees)
	}
	c.send("q")
	c.waitFor("the question", `q again to stop it`)
	c.send("q")
	c.waitFor("the exit after the cleanup", `exit=1`, `benchtui bisect: interrupted at probe 1`)
	if trees, _ := filepath.Glob(filepath.Join(tmp, "benchtui-bisect-*")); len(trees) != 0 {
		t.Errorf("temporary worktrees left after quitting: %q", trees)
	}
	if after := repoState(t, repo); after != before {
		t.Errorf("the user's repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestBisectConsoleWithoutTerminalExits2: --console with stdout not a
// terminal is a usage error, before anything runs.
func TestBisectConsoleWithoutTerminalExits2(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd(t, cmdBisect, "bench.yaml", "-g", "work", "--good", "HEAD~1", "--bad", "HEAD", "--console")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "--console needs a terminal on stdout") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and the reason", code, stdout, stderr)
	}
}
