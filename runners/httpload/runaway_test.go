package httpload

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/loop"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// runawaySession starts a session of the one group in yaml, with
// tweak applied to the parsed group (nil for none), and returns it with
// the cancel of its context.
func runawaySession(t *testing.T, yaml string, tweak func(*plan.Group)) (*engine.Session, context.CancelFunc) {
	t.Helper()
	p := runnertest.ParsePlan(t, testRegistry, "version: 1\ngroups:\n"+yaml, nil)
	if tweak != nil {
		tweak(p.Groups[0])
	}
	s, err := engine.NewSession(testRegistry, p, p.Groups[0], engine.SessionOptions{Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s.Start(ctx)
	go func() {
		for range s.Snapshots() {
		}
	}()
	return s, cancel
}

// awaitSession waits up to limit for s to end and returns how long it
// took. A session still running then fails t with every goroutine's stack
// as evidence, is cancelled, and is waited for a little longer so that it
// does not outlive the test.
func awaitSession(t *testing.T, s *engine.Session, cancel context.CancelFunc, from time.Time, limit time.Duration) time.Duration {
	t.Helper()
	timer := time.NewTimer(time.Until(from.Add(limit)))
	defer timer.Stop()
	select {
	case <-s.Done():
		return time.Since(from)
	case <-timer.C:
	}
	_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
	cancel()
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
	}
	t.Fatalf("session still running %v after it should have ended (goroutines above)", limit)
	return 0
}

// TestOpenLoopAbsurdRateEndsOnTime: `rate: 1e12` used to keep the
// dispatcher counting missed arrivals one by one, never looking at its
// context, so a 2 s step never ended (and 1e8 ended at 15 s). A 1 s step
// (the dispatcher burns a core throughout: the second of 2 s proved
// nothing more) must end within the hang bound, every arrival due must be
// either sent (and served) or dropped, and the arrivals must be what the
// rate offered over the measured time.
func TestOpenLoopAbsurdRateEndsOnTime(t *testing.T) {
	// 1e300 and +Inf (set past validation, which may refuse them) make
	// every arrival due at once. The schedule's arithmetic at every such
	// rate is the loop package's (schedule_test.go, open_test.go, on no
	// clock at all); here each client's dispatcher meets the worst of
	// them, +Inf, and the first also a high finite rate and 1e300 (each
	// run burns a core for its second: a suite of 5 minutes).
	for i, client := range mixClients {
		rates := []float64{1e8, 1e300, math.Inf(1)}
		if i > 0 {
			rates = []float64{math.Inf(1)}
		}
		for _, rate := range rates {
			t.Run(fmt.Sprintf("%s/rate=%g", client, rate), func(t *testing.T) { testAbsurdRate(t, client, rate) })
		}
	}
}

func testAbsurdRate(t *testing.T, client string, rate float64) {
	srv, served := runnertest.CountingServer(t, 0)
	start := time.Now()
	s, cancel := runawaySession(t, fmt.Sprintf(`  - id: absurd
    runner: http
    http: {requests: [{url: "%s/x"}], client: %s}
    load: {rate: 1, max_in_flight: 8}
    duration: 1s
`, srv.URL, client), func(g *plan.Group) { g.Load.Rate = rate })
	// The session's wall time bounds a hang (the step's own clock is
	// judged below): 12 s, as a suite at load 20 had not written the
	// result 6 s after the start.
	took := awaitSession(t, s, cancel, start, 12*time.Second)
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	a := s.Result()
	// An infinite rate is in the group's config, which JSON cannot hold:
	// the plan's validation must refuse it.
	if !math.IsInf(rate, 0) {
		assertLoadsBack(t, a)
	}
	st := a.Steps[0]
	t.Logf("took %v: requests=%d dropped=%d duration_s=%.3f offered_rps=%.4g served=%d",
		took, st.Requests, st.Dropped, st.DurationS, st.OfferedRPS, served.Load())
	if st.Requests == 0 || st.Requests != served.Load() {
		t.Errorf("requests = %d, the server served %d: want the same, and some", st.Requests, served.Load())
	}
	// Offered arrivals are sent + dropped; over the measured time the
	// schedule offered rate x duration (the dispatcher starts a moment
	// before the clock and stops a moment after: room of 25%).
	offered := float64(st.Requests + st.Dropped)
	if st.Dropped <= 0 {
		t.Errorf("dropped = %d, want the arrivals no worker was free for", st.Dropped)
	}
	if ratio := offered / (rate * st.DurationS); rate < 1e15 && (ratio < 0.8 || ratio > 1.25) {
		t.Errorf("sent+dropped = %.4g over %.3fs, %.3f of the %.0g/s offered: want sent+dropped = offered", offered, st.DurationS, ratio, rate)
	}
	// The step's clock ends the window when its 250 ms tick notices the
	// planned end; on a machine busy with other test binaries under the
	// race detector (and this dispatcher, which has work every pass) the
	// tick comes late: 3.07 s measured beside two CPU burners, 4.6 s in a
	// whole -race suite on 2 cores (alone: 2.03–2.19 s). duration_s is the
	// window's real length, so the rates stay right; the step only runs
	// longer (the lateness is the tick's, whatever the step's length).
	// Here the window must end within the hang bound awaitSession holds.
	if st.DurationS < 0.95 || st.DurationS > 6 {
		t.Errorf("measured %.3fs, want the step's 1s", st.DurationS)
	}
}

// assertLoadsBack writes a and loads it back with every range check: a
// run's own figures must be sane (offered_rps of an absurd rate used to
// overflow to a negative figure).
func assertLoadsBack(t *testing.T, a *artifacts.Artifact) {
	t.Helper()
	path, err := artifacts.Write(t.TempDir(), a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := artifacts.Load(path); err != nil {
		t.Errorf("the run's own artifact does not load: %v", err)
	}
}

// TestOpenLoopAbsurdRateStopsOnInterrupt: what SIGINT does to a headless
// run (Stop the session, cancel its context) ends an absurd-rate open
// loop promptly, long before its duration.
func TestOpenLoopAbsurdRateStopsOnInterrupt(t *testing.T) {
	srv, _ := runnertest.CountingServer(t, 0)
	s, cancel := runawaySession(t, fmt.Sprintf(`  - id: absurd
    runner: http
    http: {requests: [{url: "%s/x"}]}
    load: {rate: 1, max_in_flight: 8}
    duration: 60s
`, srv.URL), func(g *plan.Group) { g.Load.Rate = 1e12 }) // past validation, which refuses it
	time.Sleep(500 * time.Millisecond)
	at := time.Now()
	s.Stop("signal interrupt")
	cancel()
	// The grace is 1 s; 5 s leaves room for a busy machine.
	took := awaitSession(t, s, cancel, at, 5*time.Second)
	t.Logf("ended %v after the interrupt", took)
	if a := s.Result(); !a.Run.Partial || len(a.Steps) != 1 || a.Steps[0].Dropped == 0 {
		t.Errorf("want a partial artifact with the cut step and its drops, got %+v", a.Run)
	}
}

// countingRunner is the real HTTP runner, counting the workers it makes
// and closes.
type countingRunner struct {
	runners.Runner
	made, closed atomic.Int64
}

type countedWorker struct {
	runners.Worker
	closed *atomic.Int64
}

func (w countedWorker) Close() error { w.closed.Add(1); return w.Worker.Close() }

func (r *countingRunner) NewWorker(i int, rec *runners.Recorder) (runners.Worker, error) {
	w, err := r.Runner.NewWorker(i, rec)
	if err == nil {
		r.made.Add(1)
		w = countedWorker{Worker: w, closed: &r.closed}
	}
	return w, err
}

// TestNewWorkersHugeCountIsCancellable: a billion workers are not made
// in one go. NewWorkers stops when its context ends, with the context's
// error, having closed every worker it made, and without memory sized
// for the billion (16 GB of slice alone).
func TestNewWorkersHugeCountIsCancellable(t *testing.T) {
	srv, _ := runnertest.CountingServer(t, 0)
	p := runnertest.ParsePlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: huge
    runner: http
    http: {requests: [{url: "%s/x"}]}
    load: {concurrency: 1}
    duration: 1s
`, srv.URL), nil)
	r := &countingRunner{Runner: NewRunner(plan.Section[Spec](p.Groups[0], Section))}
	env := runners.NewStepEnv(p.Groups[0], p.Groups[0].Load, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	workers, err := loop.NewWorkers(ctx, r, env, 1_000_000_000)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	grew := after.TotalAlloc - before.TotalAlloc
	t.Logf("stopped after %v: made %d, closed %d, allocated %d MB", took, r.made.Load(), r.closed.Load(), grew>>20)
	if !errors.Is(err, context.DeadlineExceeded) || workers != nil {
		t.Errorf("NewWorkers = %d workers, %v; want none and the context's error", len(workers), err)
	}
	if took > 3*time.Second {
		t.Errorf("took %v to notice a context that ended at 100ms", took)
	}
	if r.made.Load() == 0 || r.closed.Load() != r.made.Load() {
		t.Errorf("made %d workers, closed %d: want every one closed", r.made.Load(), r.closed.Load())
	}
	// A worker is a few hundred bytes; the slice grows by doubling.
	if limit := uint64(r.made.Load())*4096 + 64<<20; grew > limit {
		t.Errorf("allocated %d MB for %d workers, want at most %d MB", grew>>20, r.made.Load(), limit>>20)
	}
}

// TestHugeConcurrencyStepStopsWhileStarting: a step whose workers (or
// event loops' connections) are still being made, for a concurrency no
// plan should pass (set past validation here), stops when the session is
// stopped rather than hanging: the goroutine client fails the step with
// the reason; the event loops, a driver, end it as stopped, with what it
// measured (nothing).
func TestHugeConcurrencyStepStopsWhileStarting(t *testing.T) {
	for _, client := range mixClients {
		t.Run(client, func(t *testing.T) {
			srv, _ := runnertest.CountingServer(t, 0)
			s, cancel := runawaySession(t, fmt.Sprintf(`  - id: huge
    runner: http
    http: {requests: [{url: "%s/x"}], client: %s}
    load: {concurrency: 1}
    duration: 60s
`, srv.URL, client), func(g *plan.Group) { g.Load.Concurrency = 1_000_000_000 })
			time.Sleep(100 * time.Millisecond)
			at := time.Now()
			s.Stop("signal interrupt")
			took := awaitSession(t, s, cancel, at, 5*time.Second)
			t.Logf("ended %v after the stop: %v", took, s.Err())
			if client == "net/http" || !epollSupported {
				if err := s.Err(); !errors.Is(err, context.Canceled) {
					t.Errorf("session error %v, want the step's start-up cancelled", err)
				}
				return
			}
			if err := s.Err(); err != nil {
				t.Fatalf("session error %v, want the driver's step ended as stopped", err)
			}
			if st := s.Result().Steps; len(st) != 1 || st[0].Requests != 0 || !slices.ContainsFunc(st[0].Events, func(e artifacts.Event) bool { return e.Kind == artifacts.EventStopped }) {
				t.Errorf("steps %+v, want one, stopped, with no request", st)
			}
		})
	}
}
