//go:build linux

package pgload_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/loads"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestLoadsShareOneEmbeddedDatabase: the `dsn: embedded` loads of one
// group run on one throwaway cluster: the reader sees the table the
// writer's setup made (not 42P01), one cluster is started and the run's
// end stops it.
func TestLoadsShareOneEmbeddedDatabase(t *testing.T) {
	t.Parallel()
	skipWithoutPostgres(t)
	reg := runners.MustRegistry(pgload.Kind(), loads.Kind(pgload.Kind()))
	p := runnertest.ParsePlan(t, reg, `version: 1
groups:
  - id: two
    duration: 500ms
    loads:
      - name: writer
        runner: postgres
        postgres:
          dsn: embedded
          setup: ["CREATE TABLE t(id bigint)"]
          statements: [{sql: "INSERT INTO t VALUES ($1)", args: [$seq]}]
        load: {concurrency: 2}
      - name: reader
        runner: postgres
        postgres: {dsn: embedded, statements: [{sql: "SELECT count(*) FROM t"}]}
        load: {concurrency: 3}
`, nil)
	run := engine.NewRun(p, reg, t.TempDir(), "test")
	defer run.Close()
	s, err := run.Session(context.Background(), p.Groups[0])
	if err != nil {
		t.Fatal(err)
	}
	st := runnertest.RunSession(t, context.Background(), s).Steps[0]
	if w, r := st.ByName["writer"], st.ByName["reader"]; w.Requests == 0 || r.Requests == 0 || st.Errors != 0 {
		t.Errorf("writer %d, reader %d requests, errors %d %v: want both on one database", w.Requests, r.Requests, st.Errors, st.ErrorKinds)
	}
	var dirs []string
	var pid int
	for _, ev := range st.Events {
		if strings.Contains(ev.Note, "embedded postgres:") {
			var dir string
			if _, err := fmt.Sscanf(ev.Note[strings.Index(ev.Note, "embedded postgres:"):], "embedded postgres: pid %d, port %d, folder %s", &pid, new(int), &dir); err == nil {
				dirs = append(dirs, dir)
			}
		}
	}
	if len(dirs) != 1 {
		t.Fatalf("%d embedded clusters started (%q): want one for the group", len(dirs), dirs)
	}
	run.Close()
	assertGone(t, dirs[0], pid)
}
