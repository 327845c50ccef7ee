//go:build unix

package pgload_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestStopEndsStatementsInFlight runs statements that would sleep a
// minute through the engine for 1 s: the step ends after its grace for
// in-flight work (2 s), each statement counted as cancelled (each of a
// pipeline's batch of 3, each of the epoll client's 3 in flight per
// connection). The modes run side by side.
func TestStopEndsStatementsInFlight(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	modes := map[string]int64{"": 4, ", connection: per-worker": 4, ", pipeline: 3": 12}
	if runtime.GOOS == "linux" {
		modes[", client: epoll, pipeline: 3"] = 12
	}
	for mode, want := range modes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			plan := runnertest.ParsePlan(t, testRegistry, `version: 1
groups:
  - id: SLEEP
    runner: postgres
    postgres: {dsn: "`+dsn+`", statements: [{sql: "SELECT pg_sleep(60)"}]`+mode+`}
    load: {concurrency: 4}
    duration: 1s
`, nil)
			run := engine.NewRun(plan, testRegistry, t.TempDir(), "test")
			s, err := run.Session(context.Background(), plan.Groups[0])
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			st := runnertest.RunSession(t, context.Background(), s).Steps[0]
			took := time.Since(start)
			run.Close()
			if took > 1500*time.Millisecond+engine.DefaultGrace+5*time.Second {
				t.Errorf("the step took %v, want about 1 s and the %v grace", took, engine.DefaultGrace)
			}
			if st.Errors != want || st.ErrorKinds["canceled"] != want {
				t.Errorf("requests %d errors %d %v, want %d cancelled", st.Requests, st.Errors, st.ErrorKinds, want)
			}
		})
	}
}

// TestCancelledStatementLeavesTheRunnerUsable cancels a worker's
// statement in flight: Do returns at once, as cancelled, and the next
// statements run on a working connection.
func TestCancelledStatementLeavesTheRunnerUsable(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	spec := &pgload.Spec{DSN: dsn, Setup: []string{"CREATE TABLE nap(s float8)", "INSERT INTO nap VALUES (60)"},
		Statements: []pgload.Statement{{SQL: "SELECT pg_sleep(s) FROM nap"}}}
	g := pgGroup(spec, 1)
	r := newRunner(t, g)
	if err := r.Prepare(context.Background(), &runners.StepEnv{Group: g, Load: g.Load}); err != nil {
		t.Fatal(err)
	}
	w, err := r.NewWorker(0, &runners.Recorder{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	out := w.Do(ctx)
	if took := time.Since(start); out.Err != "canceled" || took > 5*time.Second {
		t.Fatalf("cancelled after 300ms: %q after %v, want canceled at once", out.Err, took)
	}
	if out := w.Do(ctx); out.Err != "canceled" {
		t.Errorf("with the context ended: %q, want canceled", out.Err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	query[int64](t, dsn, "UPDATE nap SET s = 0 RETURNING 0")
	w, _ = r.NewWorker(0, &runners.Recorder{})
	defer w.Close()
	for i := range 3 {
		if out := w.Do(context.Background()); out.Err != "" {
			t.Fatalf("statement %d after the stop: %q", i, out.Err)
		}
	}
}
