//go:build linux

package spawn

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// drive runs spec's cycles through Prepare, Drive and Finish on a step
// environment of its own and returns the runner and the step's figures.
func drive(t *testing.T, ctx context.Context, spec Spec) (*Runner, *artifacts.Step) {
	t.Helper()
	r, err := NewRunner(&spec)
	if err != nil {
		t.Fatalf("NewRunner: %v", err)
	}
	defer r.Close()
	env := runners.NewStepEnv(&plan.Group{ID: "cs", Runner: "spawn"}, plan.Load{}, 2)
	res := runnertest.DriveStep(t, ctx, r, env)
	assertNoZombies(t)
	return r, res
}

func TestSpawnReadyKinds(t *testing.T) {
	addr := freeAddr(t)
	cases := []struct {
		name  string
		spec  Spec
		minMS float64
	}{
		{"exit", Spec{Command: []string{"/bin/true"}, Cycles: 20, Warmup: 3, Concurrency: 2}, 0},
		{"exit-path-lookup", Spec{Command: []string{"true"}, Cycles: 3}, 0},
		{"stdout", Spec{Command: []string{helperBin}, Cycles: 3, Ready: "stdout:/^http /"}, 0},
		// The helper listens 30 ms after its start; the cycle's clock starts
		// as the spawn returns, which a busy machine delays while the child
		// already runs (28.9 ms measured beside a suite): 20 ms still tells
		// a ready wait from none (a few ms).
		{"tcp", Spec{Command: []string{helperBin, "-addr", addr, "-delay", "30ms"}, Cycles: 3, Ready: "tcp://" + addr}, 20},
		{"http", Spec{Command: []string{helperBin, "-addr", addr, "-delay", "30ms"}, Cycles: 3, Ready: "http://" + addr + "/healthz"}, 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, res := drive(t, context.Background(), c.spec)
			s := r.Summary()
			if s.Cycles != int64(c.spec.Cycles) || len(s.Failed) != 0 {
				t.Fatalf("cycles %d failed %v, want %d ready", s.Cycles, s.Failed, c.spec.Cycles)
			}
			if s.First10P50MS < c.minMS || s.Last10P50MS < c.minMS || s.First10P50MS <= 0 {
				t.Errorf("first10 %.2f ms last10 %.2f ms, want >= %.0f ms", s.First10P50MS, s.Last10P50MS, c.minMS)
			}
			if s.StopKilled != 0 {
				t.Errorf("%d ready processes needed SIGKILL", s.StopKilled)
			}
			for _, k := range []string{"self_rss_mb_per_cycle", "first10_p50_ms", "last10_p50_ms", "cycles"} {
				if _, ok := res.Extra[k]; !ok {
					t.Errorf("Extra lacks %s: %v", k, res.Extra)
				}
			}
		})
	}
}

func TestSpawnErrorKinds(t *testing.T) {
	cases := []struct {
		name string
		spec Spec
		kind string
	}{
		{"exit code", Spec{Command: []string{"/bin/sh", "-c", "exit 3"}}, "exit_3"},
		{"signal", Spec{Command: []string{"/bin/sh", "-c", "kill -SEGV $$"}}, "signal_segv"},
		{"missing", Spec{Command: []string{"/nonexistent/benchtui-cmd"}}, kindStartFailed},
		{"exit before ready", Spec{Command: []string{helperBin, "-exit", "-code", "4"}, Ready: "stdout:/^http /"}, "exit_4"},
		{"exit 0 before ready", Spec{Command: []string{"/bin/true"}, Ready: "tcp://" + freeAddr(t)}, "exit_0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.spec.Cycles = 2
			r, _ := drive(t, context.Background(), c.spec)
			s := r.Summary()
			if s.Cycles != 0 || s.Failed[c.kind] != 2 {
				t.Fatalf("cycles %d failed %v, want 2 × %s", s.Cycles, s.Failed, c.kind)
			}
		})
	}
}

func TestSpawnTimeoutKillsGroup(t *testing.T) {
	markers := map[string]string{"exit": "36017", "stdout:/never/": "36018", "tcp://" + freeAddr(t): "36016"}
	for ready, marker := range markers {
		t.Run(ready, func(t *testing.T) {
			spec := Spec{
				Command: []string{"/bin/sh", "-c", "sleep " + marker + " & sleep " + marker + "; wait"},
				Cycles:  1, Ready: ready, Timeout: plan.Duration{Duration: 300 * time.Millisecond},
			}
			start := time.Now()
			r, _ := drive(t, context.Background(), spec)
			if s := r.Summary(); s.Failed[kindTimeout] != 1 {
				t.Fatalf("failed %v, want one timeout", s.Failed)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("a 300ms timeout took %s", d)
			}
			assertGone(t, marker)
		})
	}
}

func TestSpawnStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	r, _ := drive(t, ctx, Spec{Command: []string{"/bin/sh", "-c", "sleep 36019"}, Cycles: 5})
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Drive took %s after its context ended", d)
	}
	if s := r.Summary(); s.Cycles != 0 || len(s.Failed) != 0 {
		t.Errorf("the cut cycle was recorded: %+v", s)
	}
	assertGone(t, "36019")
}

func TestSpawnHonoursGate(t *testing.T) {
	r, err := NewRunner(&Spec{Command: []string{"/bin/true"}, Cycles: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	env := runners.NewStepEnv(&plan.Group{ID: "cs"}, plan.Load{}, 1)
	if err := r.Prepare(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	env.Gate().Pause()
	done := make(chan error, 1)
	go func() { done <- r.Drive(context.Background(), env) }()
	time.Sleep(200 * time.Millisecond)
	if n := r.Summary().Cycles; n != 0 {
		t.Fatalf("%d cycles ran while paused", n)
	}
	env.Gate().Resume()
	select {
	case err := <-done:
		if err != nil || r.Summary().Cycles != 5 {
			t.Fatalf("Drive: %v, %d cycles, want 5", err, r.Summary().Cycles)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Drive did not end after Resume")
	}
}

func TestSpawnValidate(t *testing.T) {
	src := `version: 1
groups:
  - id: cs
    runner: spawn
    spawn: {command: [], ready: "udp://x", concurrency: 2}
    load: {concurrency: 2}
  - id: sweep
    runner: spawn
    spawn: {command: ["/bin/true"], ready: "tcp://127.0.0.1:1"}
    sweep: {concurrency: [1, 4]}
  - id: ok
    runner: spawn
    spawn: {command: ["/bin/true"], cycles: 5}
`
	_, err := plan.ParsePlan("plan.yaml", []byte(src), func(string) (string, bool) { return "", false }, testRegistry)
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{"spawn.command", "spawn.ready", "spawn.concurrency", "group sweep: load.concurrency"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %s:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "group ok") {
		t.Errorf("valid group reported:\n%v", err)
	}
}

func TestStatsTrendAndSlope(t *testing.T) {
	s := newCycleStats()
	for i := range 30 {
		s.add("", float64(100-i), false, 10+0.5*float64(i))
	}
	s.add("exit_1", 5, true, 25)
	got := s.summary()
	if got.Cycles != 30 || got.Failed["exit_1"] != 1 || got.StopKilled != 1 {
		t.Fatalf("summary %+v", got)
	}
	if got.First10P50MS != 95.5 || got.Last10P50MS != 75.5 {
		t.Errorf("first10 %.2f last10 %.2f, want 95.5 and 75.5", got.First10P50MS, got.Last10P50MS)
	}
	if d := got.SelfRSSMBPerCycle - 0.5; d > 1e-9 || d < -1e-9 {
		t.Errorf("slope %.6f, want 0.5", got.SelfRSSMBPerCycle)
	}
}

// TestProbeHTTPSSelfSigned: readiness only asks whether the process
// answers, so a self-signed certificate passes, as for a watched target.
func TestProbeHTTPSSelfSigned(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	r, err := NewRunner(&Spec{Command: []string{"/bin/true"}, Ready: srv.URL + "/ready"})
	if err != nil {
		t.Fatalf("NewRunner: %v", err)
	}
	defer r.Close()
	if err := r.probe(context.Background()); err != nil {
		t.Errorf("probe of %s: %v", srv.URL, err)
	}
}
