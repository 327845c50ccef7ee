package pgload_test

import (
	"testing"

	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestVerifyOfAStatementTheLoadPrepared: a verify query whose text is a
// statement the load prepared on the same connection reads its value as
// text, as any other verify query does, not the prepared statement's
// binary result ("\x00\x00…" for 20000).
func TestVerifyOfAStatementTheLoadPrepared(t *testing.T) {
	t.Parallel()
	for _, conn := range []string{"pool", "per-worker"} {
		t.Run(conn, func(t *testing.T) {
			dsn := pgtest.NewDatabase(t)
			st := runnertest.RunPlan(t, testRegistry, `version: 1
groups:
  - id: V
    runner: postgres
    postgres:
      dsn: "${DSN}"
      connection: `+conn+`
      setup: ["CREATE TABLE t AS SELECT generate_series(1, 20000) AS n"]
      statements: [{sql: "SELECT count(*) FROM t"}]
      verify: [{name: rows, sql: "SELECT count(*) FROM t", expect: 20000}]
    load: {concurrency: 1}
    duration: 200ms
`, map[string]string{"DSN": dsn}).Steps[0]
			if st.Requests == 0 || st.Errors != 0 {
				t.Fatalf("requests %d errors %d: want the statement run", st.Requests, st.Errors)
			}
			if c := checks(&st)["rows"]; !c.OK {
				t.Errorf("verify %+v: want 20000 read as text", c)
			}
		})
	}
}
