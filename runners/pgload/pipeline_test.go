//go:build unix

package pgload_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestPipelineCountsEveryStatement: batches of 8 statements, on a pool, on
// a connection per worker and through the epoll client, count each statement once under its name,
// as the database's rows confirm; a statement that fails (a duplicate
// key, from the 11th on) fails alone, the rest of its batch succeeding.
func TestPipelineCountsEveryStatement(t *testing.T) {
	t.Parallel()
	modes := []string{"connection: pool", "connection: per-worker"}
	if runtime.GOOS == "linux" {
		modes = append(modes, "client: epoll") // 8 statements out per connection
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dsn := pgtest.NewDatabase(t)
			a := runnertest.RunPlan(t, testRegistry, `version: 1
groups:
  - id: PL
    runner: postgres
    postgres:
      dsn: "${DSN}"
      `+mode+`
      pipeline: 8
      setup: ["CREATE TABLE a(id bigint PRIMARY KEY)", "CREATE TABLE b(id bigint PRIMARY KEY)", "CREATE TABLE c(id bigint PRIMARY KEY)"]
      statements:
        - {name: a, sql: "INSERT INTO a VALUES ($1)", args: [$seq]}
        - {name: b, sql: "INSERT INTO b VALUES ($1)", args: [$seq], weight: 2}
        - {name: c, sql: "INSERT INTO c VALUES ($1 % 10)", args: [$seq]}
    load: {concurrency: 3}
    duration: 500ms
`, map[string]string{"DSN": dsn})
			st := a.Steps[0]
			rows := map[string]int64{}
			for _, table := range []string{"a", "b", "c"} {
				rows[table] = query[int64](t, dsn, "SELECT count(*) FROM "+table)
			}
			na, nb, nc := st.ByName["a"], st.ByName["b"], st.ByName["c"]
			if na.Requests+nb.Requests+nc.Requests != st.Requests || st.Requests < 8*3 {
				t.Fatalf("by name %d + %d + %d of %d requests, want them to add up, at least a batch per worker", na.Requests, nb.Requests, nc.Requests, st.Requests)
			}
			if na.Requests != rows["a"] || nb.Requests != rows["b"] || na.Errors+nb.Errors != 0 {
				t.Errorf("a: %d requests (%d errors), %d rows; b: %d (%d), %d rows", na.Requests, na.Errors, rows["a"], nb.Requests, nb.Errors, rows["b"])
			}
			if nc.Requests-nc.Errors != rows["c"] || rows["c"] > 10 || st.Errors != nc.Errors || st.ErrorKinds["sqlstate_23505"] != st.Errors {
				t.Errorf("c: %d requests, %d errors, %d rows; step errors %v", nc.Requests, nc.Errors, rows["c"], st.ErrorKinds)
			}
		})
	}
}

func TestPipelinePlanErrors(t *testing.T) {
	t.Parallel()
	const stmt = `statements: [{sql: "SELECT 1"}]`
	for sections, want := range map[string]string{
		"    postgres: {dsn: embedded, pipeline: -1, " + stmt + "}\n":                      "postgres.pipeline: want 0 or 1 (no pipeline) up to 1000",
		"    postgres: {dsn: embedded, pipeline: 1001, " + stmt + "}\n":                    "postgres.pipeline: want 0 or 1",
		"    postgres: {dsn: embedded, pipeline: 4, statements: [{tx: [\"SELECT 1\"]}]}\n": "postgres.pipeline: is for statements of one sql each",
		"    postgres: {dsn: embedded, pipeline: 4, flow: [{sql: \"SELECT 1\"}]}\n":        "postgres.pipeline: is for a mix of statements",
		"    postgres: {dsn: embedded, pipeline: 4, " + stmt + "}\n    iterations: 100\n":  "postgres.pipeline: cannot be counted in iterations",
	} {
		if err := parsePG(sections); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "plan.yaml:7:") {
			t.Errorf("%s: %v, want %q at plan.yaml:7", sections, err, want)
		}
	}
	if err := parsePG("    postgres: {dsn: embedded, pipeline: 1, " + stmt + "}\n"); err != nil {
		t.Errorf("pipeline: 1: %v", err)
	}
}
