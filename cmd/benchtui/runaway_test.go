package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
	c := startBinary(t, ctx, "run", plan, "-o", out)
	code := c.wait()
	took := time.Since(start)
	if code != exitOK || took > 6*time.Second {
		t.Fatalf("exit %d after %v, want 0 within 6s; stderr:\n%s", code, took, c.stderr)
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
	c := startBinary(t, ctx, "run", absurdRatePlan(t, srv.URL, "1e6", "60s"), "-o", out)
	waitServed(t, served, 0, 100, 30*time.Second, c)
	at := time.Now()
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	code := c.wait()
	took := time.Since(at)
	t.Logf("exit %d %v after the SIGINT", code, took)
	// The grace for in-flight work is 2 s; 8 s leaves room for a busy machine.
	if code != exitFail || took > 8*time.Second {
		t.Errorf("exit %d %v after SIGINT, want 1 within 8s; stderr:\n%s", code, took, c.stderr)
	}
	if a := loadArtifacts(t, out)["absurd"]; a == nil || !a.Run.Partial || a.Steps[0].Requests == 0 {
		t.Errorf("artifact %+v, want a partial one with what was measured", a)
	}
}
