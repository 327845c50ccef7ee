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
	t.Parallel()
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
	t.Parallel()
	err := parsePG(`    vars: {N: ["3"]}
    postgres:
      dsn: embedded
      statements: [{sql: "SELECT 1", args: ["$var:N"]}]
      verify: [{name: a, sql: "SELECT 1", expect: "{{.M}}"}]
    verify: [{name: b, sql: "SELECT {{uuid}}", "<=": "{{requests}}", dsn: "postgres://u@127.0.0.1/x"},
             {name: c, sql: "SELECT 1", "==": "{{by_name.q.status}}", dsn: "postgres://u@127.0.0.1/x"},
             {name: d, sql: "SELECT 1", "==": "{{40 * by_name.q/r.requests}}", dsn: "postgres://u@127.0.0.1/x"},
             {name: e, sql: "SELECT 1", "==": "{{requests + status}}", dsn: "postgres://u@127.0.0.1/x"},
             {name: f, sql: "SELECT 1", "==": "{{2 * by_name.q+r.requests + errors}}", dsn: "postgres://u@127.0.0.1/x"}]
`)
	if err == nil {
		t.Fatal("a verify reading what is no var passed")
	}
	for _, want := range []string{
		"plan.yaml:11:16: group PG: postgres.verify[0].expect: {{.M}}: a verify entry reads {{requests}}, {{errors}}, {{group.requests}}, {{group.errors}}, {{by_name.NAME.requests}}, {{by_name.NAME.errors}} (each may be times a whole number: {{40 * requests}}; a sum of them: {{requests + errors}}) and the group's vars ({{.N}})",
		"group PG: verify[3].==: {{requests + status}}:",
		"plan.yaml:12:14: group PG: verify[0].sql: {{uuid}}:",
		"group PG: verify[1].==: {{by_name.q.status}}:",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("plan errors lack %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "verify[2]") || strings.Contains(err.Error(), "verify[4]") {
		t.Errorf("a count times a number, or a sum of counts, is refused: %v", err)
	}
}

// TestVerifySumsCounts: a verify limit may be a sum of counts, each times
// a whole number: 3 iterations of statement a, read as 2 × a + requests +
// errors (0) + 0 × group.requests, are 9; a sum reading a name the step
// lacks fails.
func TestVerifySumsCounts(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	a := runnertest.RunPlan(t, testRegistry, `version: 1
groups:
  - id: S
    runner: postgres
    postgres:
      dsn: "${DSN}"
      statements: [{name: a, sql: "SELECT 1"}]
    verify:
      - {name: sum, sql: "SELECT {{requests}} * 3", "==": "{{2 * by_name.a.requests + requests + errors + 0 * group.requests}}"}
      - {name: missing, sql: "SELECT 0", "==": "{{by_name.a.requests + by_name.nope.requests}}"}
    load: {concurrency: 1}
    iterations: 3
`, map[string]string{"DSN": dsn})
	st := a.Steps[0]
	got := checks(&st)
	if st.Requests != 3 || st.ByName["a"].Requests != 3 {
		t.Fatalf("requests %d, by name %+v: want 3", st.Requests, st.ByName)
	}
	if c := got["sum"]; !c.OK || c.Value != 9 {
		t.Errorf("check sum %+v: want 9 == 2 × a + requests", c)
	}
	if c := got["missing"]; c.OK {
		t.Errorf("check missing %+v: a sum reading a name the step lacks passed", c)
	}
}
