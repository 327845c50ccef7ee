package pgload_test

import (
	"context"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/runnertest"
)

const setupPlan = `version: 1
groups:
  - id: S
    runner: postgres
    postgres:
      dsn: "${DSN}"
      statements:
        - {tx: ["INSERT INTO stamps(n) VALUES ($1)", "INSERT INTO all_stamps(n) VALUES ($1)"], args: ["$var:n"]}
    vars: {n: ["1", "2", "3"]}
    setup:
      - {sql: "CREATE TABLE stamps(n int); CREATE TABLE all_stamps(n int); CREATE TABLE log(n int, what text)", dsn: "${DSN}"}
      - {sql: "TRUNCATE stamps", dsn: "${DSN}", each_step: true}
    teardown:
      - {sql: "INSERT INTO log VALUES ({{.n}}, 'step')", dsn: "${DSN}", each_step: true}
      - {sql: "INSERT INTO log VALUES (0, 'group')", dsn: "${DSN}"}
    verify:
      - {name: every stamp of the step is a row, sql: "SELECT count(*) FROM stamps", expect: "{{requests}}"}
      - {name: every stamp of the group is a row, sql: "SELECT count(*) FROM stamps s, (SELECT 1) x WHERE false", "<=": 0}
    load: {concurrency: 2}
    duration: 1s
`

// TestSetupPerStep: a setup entry with each_step resets the table before
// every step, so each step's verify reconciles its own rows; the group's
// setup runs once, its teardown once at the end, each_step's teardown
// after every step with the step's var. The database's rows are the
// ground truth.
func TestSetupPerStep(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	src := strings.Replace(setupPlan, `      - {name: every stamp of the group is a row, sql: "SELECT count(*) FROM stamps s, (SELECT 1) x WHERE false", "<=": 0}`,
		`      - {name: every stamp of the group is a row, sql: "SELECT count(*) FROM all_stamps", expect: "{{group.requests}}"}`, 1)
	a := runnertest.RunPlan(t, testRegistry, src, map[string]string{"DSN": dsn})
	if len(a.Steps) != 3 {
		t.Fatalf("%d steps", len(a.Steps))
	}
	for _, st := range a.Steps {
		for _, c := range st.Checks {
			if !c.OK {
				t.Errorf("step %s: check %q failed: %s (value %v, %d requests)", st.Label, c.Name, c.Note, c.Value, st.Requests)
			}
		}
		if n := countKind(st.Events, "action"); n < 1 {
			t.Errorf("step %s: no setup/teardown events: %+v", st.Label, st.Events)
		}
	}
	if got := query[string](t, dsn, "SELECT string_agg(n || ':' || what, ',' ORDER BY what DESC, n) FROM log"); got != "1:step,2:step,3:step,0:group" {
		t.Errorf("log %q: want a teardown after each step with its n, and the group's once", got)
	}
	last := a.Steps[2]
	if rows := query[int64](t, dsn, "SELECT count(*) FROM stamps"); rows == 0 || rows > last.Requests {
		t.Errorf("stamps holds %d rows after the last step of %d requests: want that step's alone", rows, last.Requests)
	}
}

// TestSetupFailureStopsTheGroup: a setup entry that fails is a failed
// check of the step, which sends nothing, and the group stops there.
func TestSetupFailureStopsTheGroup(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	src := strings.Replace(setupPlan, `TRUNCATE stamps`, `TRUNCATE no_such_table`, 1)
	p := runnertest.ParsePlan(t, testRegistry, src, map[string]string{"DSN": dsn})
	s, err := engine.NewSession(testRegistry, p, p.Groups[0], engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background())
	for range s.Snapshots() {
	}
	<-s.Done()
	a := s.Result()
	if s.Err() == nil || len(a.Steps) != 1 || a.Steps[0].Requests != 0 {
		t.Fatalf("err %v, %d steps; want the group stopped at its first step's setup, nothing sent", s.Err(), len(a.Steps))
	}
	var failed []string
	for _, c := range a.Steps[0].Checks {
		if !c.OK {
			failed = append(failed, c.Name+": "+c.Note)
		}
	}
	if len(failed) != 1 || !strings.Contains(failed[0], "setup: ") || !strings.Contains(failed[0], "no_such_table") {
		t.Errorf("failed checks %q: want the setup entry's", failed)
	}
	if got := query[string](t, dsn, "SELECT coalesce(string_agg(what, ','), '') FROM log"); got != "group" {
		t.Errorf("log %q: the group's teardown runs however the steps ended", got)
	}
}

func countKind(events []artifacts.Event, kind string) int {
	n := 0
	for _, e := range events {
		if e.Kind == kind {
			n++
		}
	}
	return n
}
