package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// absurdRatePlan writes a plan of one open loop at rate arrivals a second
// against url, for duration.
func absurdRatePlan(t *testing.T, url, rate, duration string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.yaml")
	plan := fmt.Sprintf(`version: 1
groups:
  - id: absurd
    runner: http
    http: {requests: [{url: "%s/x"}]}
    load: {rate: %s, max_in_flight: 8}
    duration: %s
`, url, rate, duration)
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// startBinary starts the real binary with args; its stderr is kept, and
// logged when the test fails.
func startBinary(t *testing.T, ctx context.Context, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.CommandContext(ctx, benchtuiBinary(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("benchtui stderr:\n%s", stderr.String())
		}
	})
	return cmd, &stderr
}

// TestAbsurdRateRunEndsOnTime: `run` of a 2 s step at the highest rate a
// plan may ask, 1e6/s, far more than this machine can send, ends within 3x
// its duration (1e8/s took 15 s, and counted a third of the arrivals),
// exits 0 and its artifact counts what
// the server served, the rest dropped.
func TestAbsurdRateRunEndsOnTime(t *testing.T) {
	srv, served := runnertest.CountingServer(t, 0)
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	plan := absurdRatePlan(t, srv.URL, "1e6", "2s")
	benchtuiBinary(t) // built before the clock starts
	start := time.Now()
	cmd, stderr := startBinary(t, ctx, "run", plan, "-o", out)
	err := cmd.Wait()
	took := time.Since(start)
	code := cmd.ProcessState.ExitCode()
	if code != exitOK || took > 6*time.Second {
		t.Fatalf("exit %d (%v) after %v, want 0 within 6s; stderr:\n%s", code, err, took, stderr)
	}
	a := loadArtifacts(t, out)["absurd"]
	if a == nil || len(a.Steps) != 1 {
		t.Fatalf("artifact %+v, want one step", a)
	}
	st := a.Steps[0]
	t.Logf("took %v: requests=%d dropped=%d offered_rps=%.4g", took, st.Requests, st.Dropped, st.OfferedRPS)
	if st.Requests != served.Load() || st.Dropped == 0 || st.OfferedRPS < 0.8e6 || st.OfferedRPS > 1.25e6 {
		t.Errorf("requests=%d (served %d) dropped=%d offered=%.4g/s, want the served counted, the rest of 1e6/s dropped",
			st.Requests, served.Load(), st.Dropped, st.OfferedRPS)
	}
}

// waitServed polls until the server served n requests; it returns false
// when ctx ended or the process exited first (its error is put back).
func waitServed(ctx context.Context, served *atomic.Int64, n int64, exited chan error) bool {
	for served.Load() < n {
		select {
		case err := <-exited:
			exited <- err
			return false
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return true
}

// TestAbsurdRateRunStopsOnSIGINT: the first SIGINT stops a 60 s step at
// 1e6/s promptly (at 1e12/s it was ignored), with a partial artifact.
func TestAbsurdRateRunStopsOnSIGINT(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sends SIGINT: Unix only")
	}
	srv, served := runnertest.CountingServer(t, 0)
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, stderr := startBinary(t, ctx, "run", absurdRatePlan(t, srv.URL, "1e6", "60s"), "-o", out)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if !waitServed(ctx, served, 100, exited) {
		t.Fatalf("no 100 requests served before the binary exited or 60s passed; stderr:\n%s", stderr)
	}
	at := time.Now()
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := <-exited
	took := time.Since(at)
	code := cmd.ProcessState.ExitCode()
	t.Logf("exit %d %v after the SIGINT", code, took)
	// The grace for in-flight work is 2 s; 8 s leaves room for a busy machine.
	if code != exitFail || took > 8*time.Second {
		t.Errorf("exit %d (%v) %v after SIGINT, want 1 within 8s", code, err, took)
	}
	if a := loadArtifacts(t, out)["absurd"]; a == nil || !a.Run.Partial || a.Steps[0].Requests == 0 {
		t.Errorf("artifact %+v, want a partial one with what was measured", a)
	}
}
