package pgload_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

func TestCountsEveryOperationAndRow(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	spec := &pgload.Spec{
		DSN: dsn,
		Setup: []string{`CREATE TABLE a(id bigint PRIMARY KEY, worker int NOT NULL, note text NOT NULL,
			u uuid NOT NULL, at timestamptz NOT NULL, n int NOT NULL)`, "CREATE TABLE b(id bigint PRIMARY KEY)"},
		Statements: []pgload.Statement{
			{Name: "a", SQL: "INSERT INTO a VALUES ($1, $2, $3, $4, $5, $6)", Weight: 3,
				Args: []string{"$seq", "$worker", "$rand_text:12", "$uuid", "$now", "$rand_int:5:9"}},
			{Name: "b", SQL: "INSERT INTO b VALUES ($1)", Args: []string{"$seq"}},
		},
		Verify: []pgload.Verify{
			{Name: "rows", SQL: "SELECT (SELECT count(*) FROM a) + (SELECT count(*) FROM b)", Expect: "{{requests}}"},
			{Name: "errors", SQL: "SELECT 0", Expect: "{{errors}}"},
			{Name: "distinct ids", SQL: "SELECT count(DISTINCT id) FROM (SELECT id FROM a UNION ALL SELECT id FROM b) x", Expect: "{{requests}}"},
		},
		Teardown: []string{"DROP TABLE b"},
	}
	g := pgGroup(spec, 8)
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
	if got := query[int64](t, dsn, "SELECT count(*) FROM a WHERE length(note) = 12 AND worker BETWEEN 0 AND 7 AND n BETWEEN 5 AND 9"); got < 2000 || got > 2500 {
		t.Errorf("statement a ran %d times of 3000, want about 3/4", got)
	}
	if got := query[int64](t, dsn, "SELECT count(DISTINCT worker) FROM a"); got != 8 {
		t.Errorf("%d workers inserted, want 8", got)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if got := query[bool](t, dsn, "SELECT to_regclass('b') IS NULL"); !got {
		t.Error("teardown did not drop table b")
	}
}

func TestTransactionRollsBackOnError(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	spec := &pgload.Spec{
		DSN:   dsn,
		Setup: []string{"CREATE TABLE ledger(id bigint PRIMARY KEY)", "CREATE TABLE acct(id int PRIMARY KEY)"},
		Statements: []pgload.Statement{{Name: "transfer", Args: []string{"$seq"}, Tx: []string{
			"INSERT INTO ledger VALUES ($1)",
			"INSERT INTO acct VALUES (($1 % 10)::int)", // unique violation after the first 10
		}}},
		Verify: []pgload.Verify{{Name: "ledger rows", SQL: "SELECT count(*) FROM ledger", Expect: "10"}},
	}
	g := pgGroup(spec, 8)
	res := drive(t, newRunner(t, g), g, 400)
	if res.Requests != 400 || res.Errors != 390 || res.ErrorKinds["sqlstate_23505"] != 390 {
		t.Fatalf("requests %d errors %d %v, want 400, 390 sqlstate_23505", res.Requests, res.Errors, res.ErrorKinds)
	}
	if c := checks(res)["ledger rows"]; !c.OK || c.Value != 10 {
		t.Errorf("ledger rows: %+v, want 10: failed transactions must roll back", c)
	}
}

// claimQueue runs a claim statement 600 times under 16 workers against 2000
// jobs and returns whether "no duplicate fires" held.
func claimQueue(t *testing.T, claim pgload.Statement) (ok bool, dupes float64) {
	t.Helper()
	spec := &pgload.Spec{
		DSN: pgtest.NewDatabase(t),
		Setup: []string{"CREATE TABLE jobs(id int PRIMARY KEY, fired int NOT NULL DEFAULT 0)",
			"INSERT INTO jobs(id) SELECT generate_series(1, 2000)"},
		Statements: []pgload.Statement{claim},
		Verify: []pgload.Verify{
			{Name: "no duplicate fires", SQL: "SELECT count(*) FROM jobs WHERE fired > 1", Expect: "0"},
			{Name: "fires", SQL: "SELECT sum(fired) FROM jobs", Expect: "{{requests}}"},
		},
	}
	g := pgGroup(spec, 16)
	res := drive(t, newRunner(t, g), g, 600)
	if res.Errors != 0 {
		t.Fatalf("errors: %v", res.ErrorKinds)
	}
	if c := checks(res)["fires"]; !c.OK {
		t.Errorf("fires: %+v", c)
	}
	c := checks(res)["no duplicate fires"]
	return c.OK, c.Value
}

func TestClaimQueue(t *testing.T) {
	t.Parallel()
	t.Run("skip locked", func(t *testing.T) {
		ok, dupes := claimQueue(t, pgload.Statement{Name: "claim", SQL: `WITH c AS (
			SELECT id FROM jobs WHERE fired = 0 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
			UPDATE jobs j SET fired = fired + 1 FROM c WHERE j.id = c.id`})
		if !ok {
			t.Errorf("SKIP LOCKED claim fired %v jobs twice, want 0", dupes)
		}
	})
	t.Run("racy read then update", func(t *testing.T) {
		ok, dupes := claimQueue(t, pgload.Statement{Name: "racy claim", Tx: []string{
			"SELECT set_config('bt.id', (SELECT id FROM jobs WHERE fired = 0 ORDER BY id LIMIT 1)::text, true)",
			"SELECT pg_sleep(0.001)",
			"UPDATE jobs SET fired = fired + 1 WHERE id = current_setting('bt.id')::int",
		}})
		if ok {
			t.Error("the racy claim passed verify; want duplicate fires")
		}
		t.Logf("racy claim fired %v jobs more than once", dupes)
	})
}

func TestClassifiesBySQLState(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	cases := []struct {
		stmt    pgload.Statement
		want    string
		timeout plan.Duration
	}{
		{pgload.Statement{SQL: "INSERT INTO u VALUES (1)"}, "sqlstate_23505", plan.Duration{}},
		{pgload.Statement{SQL: "SELECT 1 / (random() * 0)::int"}, "sqlstate_22012", plan.Duration{}},
		{pgload.Statement{Tx: []string{"SET LOCAL statement_timeout = '20ms'", "SELECT pg_sleep(2)"}}, "sqlstate_57014", plan.Duration{}},
		{pgload.Statement{SQL: "SELECT pg_sleep(2)"}, "timeout", plan.Duration{Duration: 50e6}},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			spec := &pgload.Spec{DSN: dsn, Statements: []pgload.Statement{tc.stmt},
				Setup: []string{"CREATE TABLE IF NOT EXISTS u(id int PRIMARY KEY)", "INSERT INTO u VALUES (1) ON CONFLICT DO NOTHING"}}
			g := pgGroup(spec, 2)
			g.Load.Timeout = tc.timeout
			res := drive(t, newRunner(t, g), g, 4)
			if res.ErrorKinds[tc.want] != 4 {
				t.Errorf("error kinds %v, want 4 %s", res.ErrorKinds, tc.want)
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		ctx := context.Background()
		_, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:1/x?connect_timeout=5")
		if got := pgload.Classify(err); got != "refused" {
			t.Errorf("Classify(%v) = %q, want refused", err, got)
		}
	})
}

func TestVerifyChecksOfAnotherRunner(t *testing.T) {
	t.Parallel()
	e := pgtest.Cluster(t)
	secretDSN := strings.Replace(e.DSNFor("no_such_db"), "postgres@", "postgres:s3cretpw@", 1)
	list := []pgload.Verify{
		{Name: "answer", SQL: "SELECT 42", Expect: "42", DSN: e.DSN()},
		{Name: "text", SQL: "SELECT 'x'", Expect: "y", DSN: e.DSN()},
		{Name: "numeric", SQL: "SELECT 7.0::numeric", Expect: "{{requests}}", DSN: e.DSN()},
		{Name: "unreachable", SQL: "SELECT 1", DSN: secretDSN},
	}
	g := &plan.Group{ID: "H1", Runner: "http", Sections: map[string]any{"verify": &list}}
	if errs := pgload.ValidateVerify(g); len(errs) != 0 {
		t.Fatal(errs)
	}
	found, err := pgload.VerifyChecks(context.Background(), g, runners.Summary{Requests: 7})
	res := &artifacts.Step{Checks: found}
	got := checks(res)
	if !got["answer"].OK || got["answer"].Value != 42 || got["text"].OK || !got["numeric"].OK || got["unreachable"].OK {
		t.Errorf("checks: %+v", res.Checks)
	}
	if err == nil || strings.Contains(err.Error(), "s3cretpw") || strings.Contains(got["unreachable"].Note, "s3cretpw") {
		t.Errorf("want an error without the password, got %v / %q", err, got["unreachable"].Note)
	}
	missing := &plan.Group{Runner: "http", Sections: map[string]any{"verify": &[]pgload.Verify{{SQL: "SELECT 1"}}}}
	if errs := pgload.ValidateVerify(missing); len(errs) != 1 {
		t.Errorf("a verify entry without dsn on an http group: %v, want one error", errs)
	}
}

// A statement without arguments is prepared per connection; when the schema
// changes under it, it fails at most once per connection and is prepared
// again.
func TestPreparedStatementSurvivesSchemaChange(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	spec := &pgload.Spec{DSN: dsn, Setup: []string{"CREATE TABLE s(a int)", "INSERT INTO s VALUES (1)"},
		Statements: []pgload.Statement{{SQL: "SELECT * FROM s"}}}
	g := pgGroup(spec, 2)
	r := newRunner(t, g)
	if res := drive(t, r, g, 20); res.Errors != 0 {
		t.Fatalf("before: %v", res.ErrorKinds)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "ALTER TABLE s ADD COLUMN b int"); err != nil {
		t.Fatal(err)
	}
	res := drive(t, r, g, 40)
	if res.Errors > 2 || res.ErrorKinds["sqlstate_0A000"] != res.Errors {
		t.Errorf("after the schema change: %d errors %v, want at most one per connection (2)", res.Errors, res.ErrorKinds)
	}
}

func TestDSNPasswordNeverShown(t *testing.T) {
	t.Parallel()
	for _, dsn := range []string{
		"postgres://postgres:hunter2@127.0.0.1:1/x?connect_timeout=5",
		"host=127.0.0.1 port=1 user=postgres password=hunter2 dbname=x connect_timeout=5",
		"postgres://postgres:hunter2@127.0.0.1:1/x?sslmode=bogus",
	} {
		g := pgGroup(&pgload.Spec{DSN: dsn, Statements: []pgload.Statement{{SQL: "SELECT 1"}}}, 1)
		r := newRunner(t, g)
		err := r.Prepare(context.Background(), &runners.StepEnv{Group: g, Load: g.Load})
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Prepare with %s: %v; want an error without the password", plan.RedactURLs(dsn), err)
		}
	}
}

func TestPlanDecodingAndErrors(t *testing.T) {
	t.Parallel()
	parse := parsePG
	ok := `    postgres:
      dsn: embedded
      statements: [{sql: "SELECT 1"}]
      verify: [{name: none, sql: "SELECT 0", expect: 0}]
    verify: [{sql: "SELECT 1", expect: 1, dsn: "postgres://u@127.0.0.1/x"}]
`
	if err := parse(ok); err != nil {
		t.Fatalf("a good plan: %v", err)
	}
	if err := parse("    postgres: {dsn: embedded, bogus: 1, statements: [{sql: \"SELECT 1\"}]}\n"); err == nil ||
		!strings.Contains(err.Error(), "plan.yaml:7:") || !strings.Contains(err.Error(), "postgres.bogus: unknown key") {
		t.Errorf("an unknown key: %v", err)
	}
	err := parse(`    postgres:
      dsn: ""
      statements: [{sql: "SELECT 1", tx: ["SELECT 2"]}]
`)
	if err == nil {
		t.Fatal("a bad plan passed")
	}
	for _, want := range []string{"plan.yaml:8:7", "group PG: postgres.dsn", "statements[0]: want exactly one of sql and tx"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("plan errors lack %q:\n%v", want, err)
		}
	}
}

// The pool follows the step's workers (a sweep over concurrency) and is
// fully open before the step's clock starts.
func TestPoolFollowsTheStepAndIsWarm(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	g := pgGroup(&pgload.Spec{DSN: dsn, Statements: []pgload.Statement{{SQL: "SELECT 1"}}}, 3)
	r := newRunner(t, g)
	for _, workers := range []int{3, 7} {
		step := &runners.StepEnv{Group: g, Load: plan.Load{Concurrency: workers}}
		if err := r.Prepare(context.Background(), step); err != nil {
			t.Fatal(err)
		}
		if got := waitSessions(t, dsn, workers); got != int64(workers) {
			t.Errorf("%d connections open after Prepare for %d workers", got, workers)
		}
	}
}

// sessions counts the other connections to the database.
const sessions = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"

// waitSessions returns the number of other connections to dsn's database
// once it is down to want, or after 3 s: the backends of closed
// connections exit asynchronously.
func waitSessions(t *testing.T, dsn string, want int) int64 {
	t.Helper()
	got := query[int64](t, dsn, sessions)
	for deadline := time.Now().Add(3 * time.Second); got > int64(want) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		got = query[int64](t, dsn, sessions)
	}
	return got
}

// TestSecretsNeverReachTheArtifact: a token in the title, in a statement
// and in a verify query that Postgres echoes back in its error is hidden
// in every byte of the artifact, while the figures are kept.
func TestSecretsNeverReachTheArtifact(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	const token = "tok3n-value"
	a := runnertest.RunPlan(t, testRegistry, `version: 1
groups:
  - id: S
    title: "as ${API_TOKEN}"
    runner: postgres
    postgres: {dsn: "${DSN}", statements: [{sql: "SELECT length('${API_TOKEN}')"}]}
    verify: [{name: echo, sql: "SELECT '${API_TOKEN}'::int", expect: "1"}]
    load: {concurrency: 1}
    duration: 300ms
`, map[string]string{"DSN": dsn, "API_TOKEN": token})
	data, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), token) {
		t.Errorf("the artifact holds the token:\n%s", data)
	}
	st := a.Steps[0]
	if st.Requests == 0 || st.Errors != 0 || a.Group.Title != "as [redacted]" {
		t.Errorf("requests %d errors %d title %q: want the statements counted and the title redacted", st.Requests, st.Errors, a.Group.Title)
	}
	if c := checks(&st)["echo"]; c.OK || !strings.Contains(c.Note, "[redacted]") {
		t.Errorf("echo check %+v: want it failed with Postgres's error, the token redacted", c)
	}
}

// TestNamedStatementsAgreeWithTheRows: a mix of a named insert and a named
// update gets figures per name that the database's own rows confirm, and
// the names add up to the step.
func TestNamedStatementsAgreeWithTheRows(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	a := runnertest.RunPlan(t, testRegistry, `version: 1
groups:
  - id: N
    runner: postgres
    postgres:
      dsn: "${DSN}"
      setup: ["CREATE TABLE ev(id serial)", "CREATE TABLE counter(n int)", "INSERT INTO counter VALUES (0)"]
      statements:
        - {name: insert, sql: "INSERT INTO ev DEFAULT VALUES"}
        - {name: update, sql: "UPDATE counter SET n = n + 1", weight: 2}
    load: {concurrency: 3}
    duration: 500ms
`, map[string]string{"DSN": dsn})
	st := a.Steps[0]
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var inserted, updated int64
	if err := conn.QueryRow(context.Background(), "SELECT (SELECT count(*) FROM ev), (SELECT n FROM counter)").Scan(&inserted, &updated); err != nil {
		t.Fatal(err)
	}
	ins, upd := st.ByName["insert"], st.ByName["update"]
	if ins.Requests != inserted || upd.Requests != updated || ins.Requests+upd.Requests != st.Requests || st.Errors != 0 {
		t.Errorf("by name insert %d, update %d of %d (errors %d); the rows say %d inserted, %d updates", ins.Requests, upd.Requests, st.Requests, st.Errors, inserted, updated)
	}
}
