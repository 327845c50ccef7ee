package pgload_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// runFlow runs a one-group plan of a postgres section on a fresh database
// and returns its step and the database.
func runFlow(t *testing.T, section string) (artifacts.Step, string) {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	a := runnertest.RunPlan(t, testRegistry, `version: 1
groups:
  - id: F
    runner: postgres
`+section, map[string]string{"DSN": dsn})
	return a.Steps[0], dsn
}

// TestFlowCarriesCaptures: a session opened once per virtual user (its
// uuid captured by column), an insert whose id is captured by column and
// by regex, an update by that id and a check that reads it back. The
// rows are the ground truth: one session per worker, and every inserted
// row updated exactly once by its own session; by_name agrees.
func TestFlowCarriesCaptures(t *testing.T) {
	t.Parallel()
	st, dsn := runFlow(t, `    postgres:
      dsn: "${DSN}"
      setup:
        - "CREATE TABLE session(id uuid PRIMARY KEY DEFAULT gen_random_uuid(), worker int NOT NULL)"
        - "CREATE TABLE item(id bigserial PRIMARY KEY, session uuid NOT NULL, updated bool NOT NULL DEFAULT false, updates int NOT NULL DEFAULT 0, by_session uuid)"
      flow:
        - name: login
          once: true
          sql: "INSERT INTO session(worker) VALUES ($1) RETURNING id"
          args: [$worker]
          capture: {session: {column: id}}
        - name: insert
          sql: "INSERT INTO item(session) VALUES ($1) RETURNING id, 'tag' AS tag"
          args: ["$var:session"]
          capture: {id: {column: id}, id_re: {regex: '^(\d+)$'}}
        - name: update
          sql: "UPDATE item SET updated = true, updates = updates + 1, by_session = $2 WHERE id = $1"
          args: ["$var:id", "$var:session"]
          think: 1ms
        - name: check
          sql: "SELECT updated FROM item WHERE id = $1"
          args: ["$var:id_re"]
          capture: {ok: {regex: '^t$'}}
    load: {concurrency: 4}
    iterations: 300
    max_duration: 60s
`)
	by := st.ByName
	sessions := query[int64](t, dsn, "SELECT count(*) FROM session")
	workers := query[int64](t, dsn, "SELECT count(DISTINCT worker) FROM session")
	if sessions != 4 || workers != 4 || by["login"].Requests != sessions {
		t.Errorf("%d sessions by %d workers, login sent %d times; want one per worker (4)", sessions, workers, by["login"].Requests)
	}
	items := query[int64](t, dsn, "SELECT count(*) FROM item")
	once := query[int64](t, dsn, "SELECT count(*) FROM item WHERE updated AND updates = 1 AND by_session = session")
	if items != 300 || once != items {
		t.Errorf("%d rows inserted, %d updated exactly once by their own session; want 300 and all", items, once)
	}
	if by["insert"].Requests != items || by["update"].Requests != items || by["check"].Requests != items {
		t.Errorf("by name insert %d, update %d, check %d; the rows say %d", by["insert"].Requests, by["update"].Requests, by["check"].Requests, items)
	}
	if st.Errors != 0 || st.Requests != sessions+3*items {
		t.Errorf("step: %d requests, %d errors %v; want %d and none", st.Requests, st.Errors, st.ErrorKinds, sessions+3*items)
	}
	if it := st.ExtraMS[flow.ExtraIteration]; it.P50 <= 0 {
		t.Errorf("no iteration timing: %v", st.ExtraMS)
	}
}

// TestFlowCountsFailedCaptures: a capture that finds no row (every
// fourth id) is an error of kind capture on its step, and the step after
// it is not sent: the rows it would have marked stay unmarked.
func TestFlowCountsFailedCaptures(t *testing.T) {
	t.Parallel()
	st, dsn := runFlow(t, `    postgres:
      dsn: "${DSN}"
      setup: ["CREATE TABLE item(id bigserial PRIMARY KEY, marked bool NOT NULL DEFAULT false)"]
      flow:
        - {name: insert, sql: "INSERT INTO item DEFAULT VALUES RETURNING id", capture: {id: {column: id}}}
        - name: find
          sql: "SELECT id AS found FROM item WHERE id = $1 AND id % 4 <> 0"
          args: ["$var:id"]
          capture: {found: {column: found}}
        - {name: mark, sql: "UPDATE item SET marked = true WHERE id = $1", args: ["$var:found"]}
    load: {concurrency: 3}
    iterations: 200
    max_duration: 60s
`)
	find, mark := st.ByName["find"], st.ByName["mark"]
	missing := query[int64](t, dsn, "SELECT count(*) FROM item WHERE id % 4 = 0")
	marked := query[int64](t, dsn, "SELECT count(*) FROM item WHERE marked")
	wrong := query[int64](t, dsn, "SELECT count(*) FROM item WHERE marked = (id % 4 = 0)")
	if missing != 50 || find.ErrorKinds[flow.KindCapture] != missing || st.Errors != missing {
		t.Errorf("capture errors %v, step errors %d; %d rows had none to find (want 50)", find.ErrorKinds, st.Errors, missing)
	}
	if marked != 150 || mark.Requests != marked || wrong != 0 {
		t.Errorf("%d marks sent, %d rows marked, %d marked wrongly; want 150, 150, 0", mark.Requests, marked, wrong)
	}
}

// TestFlowCapturesFirstRows: a capture reads the first row and drops the
// rest (the connection carries the next step), and a transaction's
// capture reads its last statement that returns columns.
func TestFlowCapturesFirstRows(t *testing.T) {
	t.Parallel()
	st, dsn := runFlow(t, `    postgres:
      dsn: "${DSN}"
      setup: ["CREATE TABLE item(id bigserial PRIMARY KEY, n bigint NOT NULL UNIQUE, first int)"]
      flow:
        - name: tx
          args: [$seq]
          tx: ["INSERT INTO item(n) VALUES ($1) RETURNING 0 AS id", "UPDATE item SET first = 0 WHERE n = $1", "SELECT id FROM item WHERE n = $1"]
          capture: {id: {column: id}}
        - {name: many, sql: "SELECT g FROM generate_series(1, 5000) g", capture: {first: {column: g}}}
        - {name: use, sql: "UPDATE item SET first = $2 WHERE id = $1", args: ["$var:id", "$var:first"]}
    load: {concurrency: 2}
    iterations: 40
    max_duration: 60s
`)
	if n := query[int64](t, dsn, "SELECT count(*) FROM item WHERE first = 1"); n != 40 || st.ByName["use"].Requests != 40 || st.Errors != 0 {
		t.Errorf("%d rows got the first of 5000 rows by their own id (use sent %d, errors %v); want 40", n, st.ByName["use"].Requests, st.ErrorKinds)
	}
}

// TestFlowFailedCaptures: a statement without a row (or a transaction
// whose last statement with columns has none), a NULL, a column the
// statement lacks and a value past flow.MaxValueBytes are failed
// captures, and the step after them is never sent.
func TestFlowFailedCaptures(t *testing.T) {
	t.Parallel()
	for name, step := range map[string]string{
		"no row":          `{sql: "SELECT 1 AS v WHERE false", capture: {v: {column: v}}}`,
		"regex on no row": `{sql: "SELECT 'x' AS v WHERE false", capture: {v: {regex: '(.*)'}}}`,
		"null":            `{sql: "SELECT NULL::text AS v", capture: {v: {column: v}}}`,
		"no such column":  `{sql: "SELECT 1 AS v", capture: {v: {column: w}}}`,
		"no columns":      `{sql: "INSERT INTO never VALUES (0)", capture: {v: {column: v}}}`,
		"too long":        `{sql: "SELECT repeat('x', 9000) AS v", capture: {v: {regex: '^(x+)$'}}}`,
		"tx, last empty": `{args: [$seq], capture: {v: {column: v}}, tx: ["INSERT INTO never VALUES ($1) RETURNING n AS v",
            "SELECT 1 AS w WHERE $1 < 0"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			st, dsn := runFlow(t, `    postgres:
      dsn: "${DSN}"
      setup: ["CREATE TABLE never(n int)", "CREATE TABLE after(n int)"]
      flow:
        - `+strings.Replace(step, "{", "{name: capture, ", 1)+`
        - {name: after, sql: "INSERT INTO after VALUES (1)"}
    load: {concurrency: 2}
    iterations: 10
    max_duration: 60s
`)
			if got := st.ByName["capture"].ErrorKinds[flow.KindCapture]; got != 10 || st.Errors != 10 || query[int64](t, dsn, "SELECT count(*) FROM after") != 0 {
				t.Errorf("%d failed captures (errors %v), want 10 and no step after them", got, st.ErrorKinds)
			}
		})
	}
}

// TestFlowPlanErrors: a flow's mistakes are refused at plan time, each
// naming the file, the line and the field.
func TestFlowPlanErrors(t *testing.T) {
	t.Parallel()
	err := parsePG(`    postgres:
      dsn: embedded
      statements: [{sql: "SELECT $1", args: ["$var:x"], once: true, capture: {y: {column: y}}}]
      flow:
        - sql: "SELECT $1, $2"
          args: ["$var:later", "$var:nope"]
          weight: 2
          capture:
            h: {header: X-Id}
            j: {json: $.id}
            later: {column: id}
        - sql: "SELECT $1"
          args: ["$var:nope"]
          capture: {both: {column: a, regex: b}}
`)
	if err == nil {
		t.Fatal("a bad plan passed")
	}
	for _, want := range []string{
		`plan.yaml:8:7: group PG: postgres.flow: give statements (a weighted mix) or flow (a sequence), not both`,
		`postgres.flow[0].weight: a flow's steps run in order`,
		`postgres.flow[0].capture.h.header: is for HTTP replies`,
		`postgres.flow[0].capture.j.json: is for HTTP replies`,
		`postgres.flow[0].args[0]: "$var:later": no earlier step of the flow captures "later"`,
		`postgres.flow[1].args[0]: "$var:nope": no earlier step of the flow captures "nope"; the variables captured before this step are h, j, later`,
		`postgres.flow[1].capture.both: want exactly one of header, json, regex or column`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("plan errors lack %q:\n%v", want, err)
		}
	}

	err = parsePG(`    postgres:
      dsn: embedded
      statements: [{sql: "SELECT $1", args: ["$var:x"], once: true, think: 1ms, capture: {y: {column: y}}}]
`)
	for _, want := range []string{
		`plan.yaml:8:7: group PG: postgres.statements[0].args[0]: "$var:x": the group has no var "x" (vars:)`,
		`postgres.statements[0].capture: is for the steps of a flow (postgres.flow)`,
		`postgres.statements[0].once: is for the steps`,
		`postgres.statements[0].think: is for the steps`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("plan errors lack %q:\n%v", want, err)
		}
	}
}

// TestVarsBindAsArgs: a group var of two values makes two steps, each of
// whose inserts binds its step's value by $var (in a mix); the rows count
// each step's inserts.
func TestVarsBindAsArgs(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	a := runnertest.RunPlan(t, testRegistry, `version: 1
groups:
  - id: V
    runner: postgres
    postgres:
      dsn: "${DSN}"
      setup: ["CREATE TABLE shaped(n int NOT NULL, shape text NOT NULL)"]
      statements: [{sql: "INSERT INTO shaped VALUES ($1, $2)", args: ["$var:n", "$var:shape"]}]
    vars: {n: ["10", "500"], shape: [bound]}
    load: {concurrency: 2}
    iterations: 30
    max_duration: 60s
`, map[string]string{"DSN": dsn})
	if len(a.Steps) != 2 || a.Steps[1].Vars["n"] != "500" {
		t.Fatalf("steps %+v", a.Steps)
	}
	for _, n := range []int{10, 500} {
		if got := query[int64](t, dsn, fmt.Sprintf("SELECT count(*) FROM shaped WHERE n = %d AND shape = 'bound'", n)); got != 30 {
			t.Errorf("n=%d: %d rows, want 30", n, got)
		}
	}
}
