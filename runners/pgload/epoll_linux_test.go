//go:build linux

package pgload_test

import (
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestEpollCountsEveryRow: the epoll client's statements, with and
// without arguments, in a closed and an open loop, are each counted once
// under its name, as the database's rows confirm; a statement that fails
// (a duplicate key from the 6th on) fails alone, with the server's
// SQLSTATE, and its connection goes on.
func TestEpollCountsEveryRow(t *testing.T) {
	t.Parallel()
	for _, load := range []string{"{concurrency: 5}", "{rate: 400, max_in_flight: 5}"} {
		t.Run(load, func(t *testing.T) {
			t.Parallel()
			dsn := pgtest.NewDatabase(t)
			st := runnertest.RunPlan(t, testRegistry, `version: 1
groups:
  - id: EP
    runner: postgres
    postgres:
      dsn: "${DSN}"
      client: epoll
      setup: ["CREATE TABLE a(id bigint PRIMARY KEY, w int NOT NULL, t text NOT NULL)", "CREATE TABLE c(id bigint PRIMARY KEY)"]
      statements:
        - {name: a, sql: "INSERT INTO a VALUES ($1, $2, $3)", args: [$seq, $worker, "$rand_text:12"], weight: 3}
        - {name: c, sql: "INSERT INTO c VALUES ($1 % 5)", args: [$seq]}
        - {name: one, sql: "SELECT 1"}
        - {name: rows, sql: "SELECT g FROM generate_series(1, 3000) g"}
    load: `+load+`
    duration: 700ms
`, map[string]string{"DSN": dsn}).Steps[0]
			na, nc := st.ByName["a"], st.ByName["c"]
			var sum int64
			for _, n := range st.ByName {
				sum += n.Requests
			}
			if sum != st.Requests || na.Requests < 20 || st.ByName["one"].Requests == 0 || st.ByName["rows"].Requests == 0 {
				t.Fatalf("by name %v of %d requests: want them to add up, every statement run", st.ByName, st.Requests)
			}
			if rows := query[int64](t, dsn, "SELECT count(*) FROM a"); na.Requests != rows || na.Errors != 0 {
				t.Errorf("a: %d requests (%d errors), %d rows", na.Requests, na.Errors, rows)
			}
			if workers := query[int64](t, dsn, "SELECT count(DISTINCT w) FROM a"); strings.HasPrefix(load, "{concurrency") && workers != 5 {
				t.Errorf("%d workers inserted, want 5", workers) // an open loop's arrivals take any free one
			}
			rows := query[int64](t, dsn, "SELECT count(*) FROM c")
			if nc.Requests-nc.Errors != rows || rows > 5 || st.Errors != nc.Errors || st.ErrorKinds["sqlstate_23505"] != st.Errors {
				t.Errorf("c: %d requests, %d errors, %d rows; step errors %v", nc.Requests, nc.Errors, rows, st.ErrorKinds)
			}
		})
	}
}

// TestEpollReconnects: a statement that ends its own backend fails with
// the server's SQLSTATE (57P01), and the worker's next statement goes on
// a new connection; a statement past load.timeout fails as a timeout and
// the connection is replaced too. The rows equal the inserts that
// succeeded. (A statement's timeout runs from when it was due, so one
// that waited for a reconnect on a busy machine may time out too.)
func TestEpollReconnects(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	st := runnertest.RunPlan(t, testRegistry, `version: 1
groups:
  - id: EPR
    runner: postgres
    postgres:
      dsn: "${DSN}"
      client: epoll
      setup: ["CREATE TABLE a(id bigint PRIMARY KEY)"]
      statements:
        - {name: a, sql: "INSERT INTO a VALUES ($1)", args: [$seq], weight: 40}
        - {name: quit, sql: "SELECT pg_terminate_backend(pg_backend_pid())"}
        - {name: nap, sql: "SELECT pg_sleep(5)"}
    load: {concurrency: 3, timeout: 400ms}
    duration: 2s
`, map[string]string{"DSN": dsn}).Steps[0]
	na, quit, nap := st.ByName["a"], st.ByName["quit"], st.ByName["nap"]
	if rows := query[int64](t, dsn, "SELECT count(*) FROM a"); na.Requests-na.Errors != rows || rows < 20 {
		t.Errorf("a: %d requests (%d errors), %d rows, want the successes to be the rows", na.Requests, na.Errors, rows)
	}
	kinds := st.ErrorKinds
	if quit.Requests == 0 || quit.Errors != quit.Requests || kinds["sqlstate_57P01"] == 0 || kinds["sqlstate_57P01"] > quit.Errors {
		t.Errorf("quit: %d requests, %d errors; kinds %v: want each failed, as sqlstate_57P01", quit.Requests, quit.Errors, kinds)
	}
	if nap.Requests == 0 || nap.Errors != nap.Requests || kinds["timeout"] < nap.Errors {
		t.Errorf("nap: %d requests; kinds %v: want each a timeout", nap.Requests, kinds)
	}
	if kinds["sqlstate_57P01"]+kinds["timeout"] != st.Errors {
		t.Errorf("errors %d of kinds %v: want only the server's ending and timeouts", st.Errors, kinds)
	}
}

func TestEpollPlanErrors(t *testing.T) {
	t.Parallel()
	for sections, want := range map[string]string{
		"    postgres: {dsn: embedded, client: libpq, statements: [{sql: \"SELECT 1\"}]}\n":                    `postgres.client: want "pgx" (the default) or "epoll"`,
		"    postgres: {dsn: embedded, client: epoll, flow: [{sql: \"SELECT 1\"}]}\n":                          "postgres.client: epoll: it runs a mix of statements, not a flow",
		"    postgres: {dsn: embedded, client: epoll, statements: [{tx: [\"SELECT 1\"]}]}\n":                   "postgres.client: epoll: it runs statements of one sql each",
		"    postgres: {dsn: embedded, client: epoll, pool: 3, statements: [{sql: \"SELECT 1\"}]}\n":           "postgres.client: epoll: each worker has a connection of its own",
		"    postgres: {dsn: embedded, client: epoll, statements: [{sql: \"SELECT 1\"}]}\n    iterations: 9\n": "postgres.client: epoll: it runs for a duration",
	} {
		if err := parsePG(sections); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "plan.yaml:7:") {
			t.Errorf("%s: %v, want %q at plan.yaml:7", sections, err, want)
		}
	}
	if err := parsePG("    postgres: {dsn: embedded, client: epoll, connection: per-worker, statements: [{sql: \"SELECT 1\"}]}\n"); err != nil {
		t.Errorf("client: epoll, connection: per-worker: %v", err)
	}
}
