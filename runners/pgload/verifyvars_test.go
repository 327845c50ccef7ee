package pgload_test

import (
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestVerifyReadsTheStepsVars: a verify entry's sql, expect and limits
// read the step's vars ({{.N}}) as they read its counts: each step of a
// var's sweep is judged against its own value.
func TestVerifyReadsTheStepsVars(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	a := runnertest.RunPlan(t, testRegistry, `version: 1
groups:
  - id: V
    runner: postgres
    vars: {N: ["3", "5"]}
    postgres:
      dsn: "${DSN}"
      statements: [{sql: "SELECT 1"}]
      verify:
        - {name: expect, sql: "SELECT {{.N}} * 10", expect: "{{ .N }}0"}
        - {name: limit, sql: "SELECT {{.N}} + 1", ">": "{{.N}}"}
    verify: [{name: text, sql: "SELECT 'n={{.N}}'", expect: "n={{.N}}"}]
    load: {concurrency: 1}
    iterations: 1
`, map[string]string{"DSN": dsn})
	if len(a.Steps) != 2 {
		t.Fatalf("%d steps, want one per value of N", len(a.Steps))
	}
	for _, st := range a.Steps {
		got := checks(&st)
		for _, name := range []string{"expect", "limit", "text"} {
			if c, ok := got[name]; !ok || !c.OK {
				t.Errorf("step %s: check %s %+v: want it to pass with N=%s", st.Label, name, c, st.Vars["N"])
			}
		}
	}
}

// TestVerifyTextReadsOnlyCountsAndVars: an action of a verify entry's
// text that is neither a count nor a var of the group is a plan error at
// the entry, not text compared as written.
func TestVerifyTextReadsOnlyCountsAndVars(t *testing.T) {
	err := parsePG(`    vars: {N: ["3"]}
    postgres:
      dsn: embedded
      statements: [{sql: "SELECT 1", args: ["$var:N"]}]
      verify: [{name: a, sql: "SELECT 1", expect: "{{.M}}"}]
    verify: [{name: b, sql: "SELECT {{uuid}}", "<=": "{{requests}}", dsn: "postgres://u@127.0.0.1/x"},
             {name: c, sql: "SELECT 1", "==": "{{by_name.q.status}}", dsn: "postgres://u@127.0.0.1/x"},
             {name: d, sql: "SELECT 1", "==": "{{40 * by_name.q/r.requests}}", dsn: "postgres://u@127.0.0.1/x"}]
`)
	if err == nil {
		t.Fatal("a verify reading what is no var passed")
	}
	for _, want := range []string{
		"plan.yaml:11:16: group PG: postgres.verify[0].expect: {{.M}}: a verify entry reads {{requests}}, {{errors}}, {{group.requests}}, {{group.errors}}, {{by_name.NAME.requests}}, {{by_name.NAME.errors}} (each may be times a whole number: {{40 * requests}}) and the group's vars ({{.N}})",
		"plan.yaml:12:14: group PG: verify[0].sql: {{uuid}}:",
		"group PG: verify[1].==: {{by_name.q.status}}:",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("plan errors lack %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "verify[2]") {
		t.Errorf("a count times a number is refused: %v", err)
	}
}
