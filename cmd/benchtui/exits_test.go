package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/runnertest"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// child is the real benchtui binary running as a child of the test.
type child struct {
	cmd    *exec.Cmd
	stderr *testbin.Buffer
}

// startBinary starts the real binary with args; it is killed when ctx ends
// and waited for when the test ends.
func startBinary(t *testing.T, ctx context.Context, args ...string) *child {
	t.Helper()
	return startBinaryTo(t, ctx, nil, args...)
}

// startBinaryTo is startBinary with the binary's stdout going to stdout.
func startBinaryTo(t *testing.T, ctx context.Context, stdout io.Writer, args ...string) *child {
	t.Helper()
	c := &child{cmd: exec.CommandContext(ctx, benchtuiBinary(t), args...), stderr: &testbin.Buffer{}}
	c.cmd.Stderr, c.cmd.Stdout = c.stderr, stdout
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			c.cmd.Process.Kill()
			c.cmd.Wait()
		}
	})
	return c
}

// wait waits for the binary's exit and returns its exit code.
func (c *child) wait() int {
	c.cmd.Wait()
	return c.cmd.ProcessState.ExitCode()
}

// waitServed polls until the server has answered n more requests than
// from, failing t after within.
func waitServed(t *testing.T, served *atomic.Int64, from, n int64, within time.Duration, c *child) {
	t.Helper()
	deadline := time.Now().Add(within)
	for served.Load() < from+n {
		if time.Now().After(deadline) {
			t.Fatalf("the server answered %d requests in %s, want %d\n%s", served.Load()-from, within, n, c.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// interruptMidStep runs the closed-loop group of writePlan against a
// loopback server for 30 s, sends sigs once it has served 200 requests
// (gap apart) and returns the exit code, the artifacts folder and stderr.
func interruptMidStep(t *testing.T, gap time.Duration, sigs ...syscall.Signal) (int, string, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("sends Unix signals")
	}
	srv, served := runnertest.CountingServer(t, time.Millisecond)
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := startBinary(t, ctx, "run", writePlan(t, srv.URL, ""), "-o", out, "-g", "closed", "--duration", "30s")
	waitServed(t, served, 0, 200, 30*time.Second, c)
	for i, sig := range sigs {
		if i > 0 {
			time.Sleep(gap)
		}
		c.cmd.Process.Signal(sig)
	}
	code := c.wait()
	if ctx.Err() != nil {
		t.Fatalf("the run did not end within 60 s of its start\n%s", c.stderr.String())
	}
	return code, out, c.stderr.String()
}

// checkPartial fails t unless out holds exactly one artifact, partial,
// cut short with a stopped event, and no temp file.
func checkPartial(t *testing.T, out, stderr string) {
	t.Helper()
	names := writtenFiles(t, out)
	if len(names) != 1 || !strings.HasSuffix(names[0], ".json") {
		t.Fatalf("files in %s: %q, want exactly one artifact and no temp file\n%s", out, names, stderr)
	}
	a, err := artifacts.Load(filepath.Join(out, names[0]))
	if err != nil {
		t.Fatal(err)
	}
	if !a.Run.Partial || len(a.Steps) != 1 || a.Steps[0].Requests < 100 {
		t.Fatalf("artifact partial=%v steps=%d, want a partial one with the requests measured\n%s", a.Run.Partial, len(a.Steps), stderr)
	}
	if st := a.Steps[0]; st.DurationS >= 30 || !hasEvent(st, artifacts.EventStopped) {
		t.Errorf("step %+v, want cut short with a stopped event", st)
	}
}

// writtenFiles are the names of the files in dir but the artifacts'
// finished interval logs (.hlog, written beside them); temp files count.
func writtenFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".hlog") {
			names = append(names, e.Name())
		}
	}
	return names
}

// TestSignalsWritePartialArtifact: SIGINT, SIGTERM and SIGHUP (a closed
// terminal or ssh session) each stop the run with the figures measured so
// far on disk and exit 1.
func TestSignalsWritePartialArtifact(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			code, out, stderr := interruptMidStep(t, 0, sig)
			if code != exitFail {
				t.Errorf("exit %d, want 1 after %s\n%s", code, sig, stderr)
			}
			checkPartial(t, out, stderr)
		})
	}
}

// TestDoubleSIGINTWritesOneArtifact sends SIGINT twice, a little further
// apart each time, so that the second one lands before, during and after
// the main path's write: every time exactly one artifact is left, no temp
// file, and the exit code is 1.
func TestDoubleSIGINTWritesOneArtifact(t *testing.T) {
	t.Parallel()
	for i := range 10 {
		gap := time.Duration(i) * 2 * time.Millisecond
		code, out, stderr := interruptMidStep(t, gap, syscall.SIGINT, syscall.SIGINT)
		if code != exitFail {
			t.Errorf("gap %s: exit %d, want 1\n%s", gap, code, stderr)
		}
		names := writtenFiles(t, out)
		if len(names) != 1 || !strings.HasSuffix(names[0], ".json") || strings.Contains(names[0], ".tmp") {
			t.Fatalf("gap %s: files %q, want exactly one artifact and no temp file\n%s", gap, names, stderr)
		}
		if n := strings.Count(stderr, "closed: artifact "); n != 1 {
			t.Errorf("gap %s: the artifact was written %d times, want once\n%s", gap, n, stderr)
		}
	}
}

// TestRunOutputNotAFolderExits2: -o naming a file is a usage error that
// names it, found before any request is sent.
func TestRunOutputNotAFolderExits2(t *testing.T) {
	t.Parallel()
	srv, served := runnertest.CountingServer(t, 0)
	file := filepath.Join(t.TempDir(), "results")
	os.WriteFile(file, []byte("not a folder"), 0o644)
	code, _, stderr := runCmd(t, cmdRun, writePlan(t, srv.URL, ""), "-o", file)
	if code != exitUsage || !strings.Contains(stderr, "artifacts folder "+file) {
		t.Errorf("exit %d, stderr %q; want 2 naming %s", code, stderr, file)
	}
	if n := served.Load(); n != 0 {
		t.Errorf("%d requests sent before the unusable folder was noticed, want 0", n)
	}
}

// TestRunLostArtifactExits1: when the artifact cannot be written at the
// end (the folder was replaced by a file during the run), the run exits 1
// and says why: CI must not see success with the figures lost.
func TestRunLostArtifactExits1(t *testing.T) {
	t.Parallel()
	srv, served := runnertest.CountingServer(t, time.Millisecond)
	out := filepath.Join(t.TempDir(), "results")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := startBinary(t, ctx, "run", writePlan(t, srv.URL, ""), "-o", out, "-g", "closed", "--duration", "3s")
	waitServed(t, served, 0, 50, 30*time.Second, c)
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	code := c.wait()
	if code != exitFail || !strings.Contains(c.stderr.String(), out) {
		t.Errorf("exit %d, want 1 with an error naming %s\n%s", code, out, c.stderr.String())
	}
}
