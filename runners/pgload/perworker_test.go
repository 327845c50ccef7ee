//go:build unix

package pgload_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestPerWorkerConnectionsCountEveryRow: with a connection per worker
// every insert, plain or in a transaction, is counted once and is a row
// in the database, and each worker has its own backend.
func TestPerWorkerConnectionsCountEveryRow(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	spec := &pgload.Spec{
		DSN: dsn, Connection: pgload.ConnectionPerWorker,
		Setup: []string{"CREATE TABLE a(id bigint PRIMARY KEY, worker int NOT NULL)", "CREATE TABLE b(id bigint PRIMARY KEY)"},
		Statements: []pgload.Statement{
			{Name: "a", SQL: "INSERT INTO a VALUES ($1, $2)", Args: []string{"$seq", "$worker"}, Weight: 2},
			{Name: "tx", Tx: []string{"INSERT INTO b VALUES ($1)", "SELECT count(*) FROM b"}, Args: []string{"$seq"}},
		},
		Verify: []pgload.Verify{
			{Name: "rows", SQL: "SELECT (SELECT count(*) FROM a) + (SELECT count(*) FROM b)", Expect: "{{requests}}"},
			// The workers' connections; the pool's one asks.
			{Name: "backends", SQL: sessions, Expect: "6"},
		},
	}
	g := pgGroup(spec, 6)
	r := newRunner(t, g)
	res := drive(t, r, g, 3000)
	if res.Requests != 3000 || res.Errors != 0 {
		t.Fatalf("requests %d errors %d (%v), want 3000 and 0", res.Requests, res.Errors, res.ErrorKinds)
	}
	for _, c := range res.Checks {
		if !c.OK {
			t.Errorf("check %q failed: value %v, %s", c.Name, c.Value, c.Note)
		}
	}
	if got := query[int64](t, dsn, "SELECT count(DISTINCT worker) FROM a"); got != 6 {
		t.Errorf("%d workers inserted, want 6", got)
	}
}

// TestPerWorkerConnectionsFollowTheStep: through the engine, a sweep over
// concurrency gives each step's workers a connection each (no pool wait is
// recorded), and the database's rows equal the requests of both steps;
// with the epoll client too, whose loops close the sockets they took
// with their step and the next step opens its own.
func TestPerWorkerConnectionsFollowTheStep(t *testing.T) {
	t.Parallel()
	modes := []string{"connection: per-worker"}
	if runtime.GOOS == "linux" {
		modes = append(modes, "client: epoll")
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) { testPerWorkerSweep(t, mode) })
	}
}

func testPerWorkerSweep(t *testing.T, mode string) {
	dsn := pgtest.NewDatabase(t)
	a := runnertest.RunPlan(t, testRegistry, `version: 1
groups:
  - id: PW
    runner: postgres
    postgres:
      dsn: "${DSN}"
      `+mode+`
      setup: ["CREATE TABLE hits(id bigint PRIMARY KEY, w int)"]
      statements: [{sql: "INSERT INTO hits VALUES ($1, $2)", args: [$seq, $worker]}]
      verify:
        - {name: rows, sql: "SELECT count(*) FROM hits", expect: "{{group.requests}}"}
    load: {concurrency: 2}
    sweep: {concurrency: [2, 5]}
    duration: 500ms
`, map[string]string{"DSN": dsn})
	if len(a.Steps) != 2 {
		t.Fatalf("%d steps, want 2", len(a.Steps))
	}
	for i, st := range a.Steps {
		if st.Requests == 0 || st.Errors != 0 {
			t.Errorf("step %d: requests %d errors %d %v", i, st.Requests, st.Errors, st.ErrorKinds)
		}
		for _, c := range st.Checks {
			if !c.OK {
				t.Errorf("step %d: check %q failed: value %v, %s", i, c.Name, c.Value, c.Note)
			}
		}
		if _, ok := st.ExtraMS["pool_wait"]; ok {
			t.Errorf("step %d: a pool wait without a pool: %v", i, st.ExtraMS)
		}
	}
	if got := query[int64](t, dsn, "SELECT count(DISTINCT w) FROM hits"); got != 5 {
		t.Errorf("%d workers inserted, want 5", got)
	}
}

// TestPerWorkerConnectionsAreWarm: Prepare opens exactly one connection per
// worker (and the pool's one for setup and verify), before any worker is
// made.
func TestPerWorkerConnectionsAreWarm(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	g := pgGroup(&pgload.Spec{DSN: dsn, Connection: pgload.ConnectionPerWorker, Statements: []pgload.Statement{{SQL: "SELECT 1"}}}, 3)
	r := newRunner(t, g)
	for _, workers := range []int{4, 2} {
		if err := r.Prepare(context.Background(), &runners.StepEnv{Group: g, Load: plan.Load{Concurrency: workers}}); err != nil {
			t.Fatal(err)
		}
		if got := waitSessions(t, dsn, workers+1); got != int64(workers+1) {
			t.Errorf("%d connections open after Prepare for %d workers, want %d", got, workers, workers+1)
		}
	}
}

func TestConnectionPlanErrors(t *testing.T) {
	t.Parallel()
	for sections, want := range map[string]string{
		"    postgres: {dsn: embedded, connection: shared, statements: [{sql: \"SELECT 1\"}]}\n":              `plan.yaml:7:15: group PG: postgres.connection: want "pool"`,
		"    postgres: {dsn: embedded, connection: per-worker, pool: 4, statements: [{sql: \"SELECT 1\"}]}\n": "plan.yaml:7:15: group PG: postgres.pool: is the size of the shared pool",
	} {
		if err := parsePG(sections); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", sections, err, want)
		}
	}
	if err := parsePG("    postgres: {dsn: embedded, connection: pool, pool: 4, statements: [{sql: \"SELECT 1\"}]}\n"); err != nil {
		t.Errorf("connection: pool: %v", err)
	}
}
