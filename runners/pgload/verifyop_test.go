package pgload_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/plan"
)

func str(s string) *string { return &s }

// verifyNow validates list as an http group's verify (whose vars are
// sum's) and runs it.
func verifyNow(t *testing.T, list []pgload.Verify, sum runners.Summary) map[string]artifacts.Check {
	t.Helper()
	g := &plan.Group{ID: "H1", Runner: "http", Sections: map[string]any{"verify": &list}, Vars: map[string][]string{}}
	for name, v := range sum.Vars {
		g.Vars[name] = []string{v}
	}
	if errs := pgload.ValidateVerify(g); len(errs) != 0 {
		t.Fatal(errs)
	}
	found, _ := pgload.VerifyChecks(context.Background(), g, sum)
	return checks(&artifacts.Step{Checks: found})
}

func TestVerifyOperators(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	list := []pgload.Verify{
		{Name: "le", SQL: "SELECT 5", Comparison: plan.Comparison{LE: str("5")}},
		{Name: "lt", SQL: "SELECT 5", Comparison: plan.Comparison{LT: str("5")}},
		{Name: "ge", SQL: "SELECT 0.9", Comparison: plan.Comparison{GE: str("0.85")}},
		{Name: "between", SQL: "SELECT 7", Comparison: plan.Comparison{Between: []string{"1", "{{requests}}"}}},
		{Name: "outside", SQL: "SELECT 8", Comparison: plan.Comparison{Between: []string{"1", "{{requests}}"}}},
		{Name: "ne text", SQL: "SELECT 'a'", Comparison: plan.Comparison{NE: str("b")}},
		{Name: "eq text", SQL: "SELECT 'a'", Comparison: plan.Comparison{EQ: str("b")}},
		{Name: "gt on text", SQL: "SELECT 'a'", Comparison: plan.Comparison{GT: str("1")}},
		{Name: "expect", SQL: "SELECT 7", Expect: "{{requests}}"},
	}
	for i := range list {
		list[i].DSN = dsn
	}
	got := verifyNow(t, list, runners.Summary{Requests: 7})
	want := map[string]bool{"le": true, "lt": false, "ge": true, "between": true, "outside": false,
		"ne text": true, "eq text": false, "gt on text": false, "expect": true}
	for name, ok := range want {
		if got[name].OK != ok {
			t.Errorf("%s: ok %v, want %v (%+v)", name, got[name].OK, ok, got[name])
		}
		if got[name].TimeToPassS != 0 {
			t.Errorf("%s: time_to_pass_s %v without until", name, got[name].TimeToPassS)
		}
	}
	if n := got["outside"].Note; got["outside"].Value != 8 || !strings.Contains(n, "got 8, want between 1 and 7") {
		t.Errorf("outside: %+v", got["outside"])
	}
}

// A queue drained by a second connection passes `until:` with the time it
// took; one that never drains fails at the limit with its last value.
func TestVerifyUntilWaitsForAQueueToDrain(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const rows = 20
	for _, sql := range []string{
		"CREATE TABLE queue(id int PRIMARY KEY)", "INSERT INTO queue SELECT generate_series(1, 20)",
		"CREATE TABLE stuck(id int PRIMARY KEY)", "INSERT INTO stuck SELECT generate_series(1, 20)",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	drained := make(chan error, 1)
	go func() { // the worker: one job every 50 ms, about a second in all
		for range rows {
			time.Sleep(50 * time.Millisecond)
			if _, err := conn.Exec(ctx, "DELETE FROM queue WHERE id = (SELECT min(id) FROM queue)"); err != nil {
				drained <- err
				return
			}
		}
		drained <- nil
	}()
	until := plan.Duration{Duration: 10 * time.Second}
	list := []pgload.Verify{
		{Name: "drains", SQL: "SELECT count(*) FROM queue", Comparison: plan.Comparison{EQ: str("0")}, Until: until, DSN: dsn},
		{Name: "never drains", SQL: "SELECT count(*) FROM stuck", Comparison: plan.Comparison{LE: str("0")},
			Until: plan.Duration{Duration: 2 * time.Second}, DSN: dsn},
	}
	start := time.Now()
	got := verifyNow(t, list, runners.Summary{})
	elapsed := time.Since(start)
	if err := <-drained; err != nil {
		t.Fatal(err)
	}
	d := got["drains"]
	if !d.OK || d.Value != 0 || d.TimeToPassS <= 0 || d.TimeToPassS >= until.Seconds() {
		t.Errorf("drains: %+v; want ok with 0 < time_to_pass_s < %v", d, until.Seconds())
	}
	n := got["never drains"]
	if n.OK || n.Value != rows || n.TimeToPassS != 0 || !strings.Contains(n.Note, "did not hold within 2s") || !strings.Contains(n.Note, "got 20, want <= 0") {
		t.Errorf("never drains: %+v; want failed with the last value 20", n)
	}
	if elapsed < 2*time.Second {
		t.Errorf("the failing entry gave up after %v (with the other), before its 2s", elapsed)
	}
}

func TestVerifyPlanErrors(t *testing.T) {
	t.Parallel()
	ok := `    postgres:
      dsn: embedded
      statements: [{sql: "SELECT 1"}]
      verify:
        - {name: drained, sql: "SELECT count(*) FROM q", "==": 0, until: 30s}
        - {name: in range, sql: "SELECT 1", between: [0, "{{requests}}"]}
`
	if err := parsePG(ok); err != nil {
		t.Fatalf("a good plan: %v", err)
	}
	for _, c := range []struct{ yaml, want string }{
		{`{sql: "SELECT 1", "=<": 1}`, `plan.yaml:13:29: groups[0].postgres.verify[2].=<: unknown key (known: !=, <, <=, ==, >, >=, between,`},
		{`{sql: "SELECT 1", between: [1]}`, `plan.yaml:13:11: group PG: postgres.verify[2]: between wants two values [low, high], got 1`},
		{`{sql: "SELECT 1", "<": 1, ">": 0}`, `plan.yaml:13:11: group PG: postgres.verify[2]: one operator per entry, got < and >`},
		{`{sql: "SELECT 1", "<": abc}`, `plan.yaml:13:11: group PG: postgres.verify[2].<: want a number, {{requests}}, {{errors}}, {{group.requests}}, {{group.errors}} or {{by_name.NAME.requests}} (times a whole number or not, or a sum of those), got "abc"`},
		{`{sql: "SELECT 1", "<": 1, expect: 1}`, `give expect or an operator (<), not both`},
		{`{sql: "SELECT 1", "<": 1, until: 3x}`, `plan.yaml:13:44: groups[0].postgres.verify[2].until: bad duration "3x"`},
		{`{sql: "SELECT 1", until: 3s}`, `plan.yaml:13:11: group PG: postgres.verify[2].until: nothing to wait for`},
	} {
		err := parsePG(ok + "        - " + c.yaml + "\n")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %q", c.yaml, err, c.want)
		}
	}
}
