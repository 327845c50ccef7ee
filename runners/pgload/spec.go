// Package pgload is benchtui's Postgres runner (`runner: postgres`): a
// weighted mix of statements through a pgx/v5 pool sized to the workers and
// warmed before the clock starts, setup and teardown statements, and verify
// queries that become the step's checks.
//
// One statement (or one `tx:` list, run as BEGIN … COMMIT) is one
// operation. Its latency runs from when the worker asked for it, its
// service time from when a pooled connection was in hand; the wait for the
// connection is kept apart as the extra timing "pool_wait". Failures are
// counted by SQLSTATE ("sqlstate_40001"), or as "timeout", "canceled",
// "refused" or "other". `connection: per-worker` gives each worker a
// connection of its own in place of the pool (no pool_wait).
//
// `flow:` in place of `statements:` makes each worker a virtual user
// (package flow) that runs the steps in order per iteration: a step's
// captures read the first row it returns, as text, and later steps bind
// them with the arg $var:NAME. A step that captures runs as a query asking
// for text results; the others run exactly as a mix's statements do.
//
// `dsn: embedded` starts a throwaway cluster (StartEmbedded) from the
// initdb and postgres on the machine, stopped when the run ends. A group of
// any runner may carry a `verify:` list of its own; see VerifyChecks.
package pgload

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
)

// Spec is the `postgres:` section of a group.
type Spec struct {
	// DSN is a postgres:// URL or key=value DSN, or "embedded".
	DSN string `yaml:"dsn,required"`
	// Pool is the pool size; 0 means the step's number of workers.
	Pool int `yaml:"pool"`
	// Connection is how workers reach the server: "pool" (the default,
	// a pool of Pool connections shared by the workers) or "per-worker"
	// (each worker its own connection, no pool).
	Connection string `yaml:"connection"`
	// Pipeline, above 1, makes each operation of a worker a batch of
	// that many statements of the mix sent at once in pipeline mode,
	// each recorded by itself (pipeline.go).
	Pipeline int `yaml:"pipeline"`
	// Client is "pgx" (the default) or "epoll" (epoll.go): event loops
	// that speak the protocol themselves, a connection per worker.
	Client string `yaml:"client"`
	// Setup runs once, before the first step's warmup.
	Setup []string `yaml:"setup"`
	// Teardown runs once, when the group ends.
	Teardown []string `yaml:"teardown"`
	// Statements are the weighted mix of operations.
	Statements []Statement `yaml:"statements"`
	// Flow, instead of Statements, is a sequence each worker (a virtual
	// user) runs in order per iteration, carrying captured values from
	// one statement's first row to later statements' args ($var:name).
	Flow []Statement `yaml:"flow"`
	// Verify runs after each step; each entry becomes a check.
	Verify []Verify `yaml:"verify"`
}

// Statement is one operation of the mix: SQL, or a list of statements Tx
// run as one transaction.
type Statement struct {
	Name string `yaml:"name"`
	SQL  string `yaml:"sql"`
	// Weight is the statement's share of the mix; 0 means 1.
	Weight int `yaml:"weight"`
	// Args are bound to $1, $2, …: literals or generators ($seq, $worker,
	// $rand_int:LO:HI, $rand_text:N, $uuid, $now, and in a flow $var:name,
	// a variable an earlier step captured; "$$x" is the literal "$x").
	// In a transaction each statement takes the first as many args as the
	// highest $N it names.
	Args []string `yaml:"args"`
	Tx   []string `yaml:"tx"`
	// Capture, Once and Think are for flow steps (package flow). A
	// capture reads the first row the statement returns (a transaction's:
	// the last of its statements that returns columns): {column: name},
	// or {regex: …} matched against the first column.
	Capture map[string]flow.Capture `yaml:"capture"`
	Once    bool                    `yaml:"once"`
	Think   plan.Duration           `yaml:"think"`
}

// Verify is a value read after a step (a query's, an HTTP reply's, a
// command's, a probe's) and compared with Expect, or with an operator's
// limit.
type Verify struct {
	Name string `yaml:"name"`
	// SQL, HTTP, Command and Probe are the entry's source, exactly one:
	// a query (first column of the first row), an HTTP reply, a command's
	// stdout or exit status, or one more read of a probe of the group
	// (verifysource.go).
	SQL     string      `yaml:"sql"`
	HTTP    *VerifyHTTP `yaml:"http"`
	Command []string    `yaml:"command"`
	Probe   string      `yaml:"probe"`
	// Value, with Command, is what the value is: "" the trimmed stdout,
	// "exit_status" the exit status.
	Value string `yaml:"value"`
	// Timeout bounds one read of sql, http or command (verifyTimeout for
	// sql, defaultReadTimeout otherwise; at most verifyTimeout). A probe's
	// read has the probe's own timeout.
	Timeout plan.Duration `yaml:"timeout"`
	// Expect is a number (compared numerically) or a string; it, SQL and
	// the comparison's limits may read the counts ("{{requests}}") and
	// the step's vars ("{{.N}}"): expandVerify. Empty: the query only has
	// to succeed.
	Expect string `yaml:"expect"`
	// Comparison, instead of Expect, is one operator and its limit
	// (`"<=": 5`, `between: [1, "{{requests}}"]`); see verifyop.go.
	plan.Comparison `yaml:",inline"`
	// Until, when set, polls the query until the comparison holds or this
	// long has passed; the check records the time it took.
	Until plan.Duration `yaml:"until"`
	// DSN, when set, is the database to ask; otherwise the group's.
	DSN string `yaml:"dsn"`
	// Pos is where the entry starts in the plan file.
	Pos plan.Pos `yaml:"-"`
}

// VerifyHTTP is a verify entry's `http:` source: one request, whose value
// is the first node JSON (an RFC 9535 JSONPath) selects in the reply, or
// without JSON its status code.
type VerifyHTTP struct {
	URL     string            `yaml:"url,required"`
	Method  string            `yaml:"method"`
	Headers map[string]string `yaml:"headers"`
	Body    string            `yaml:"body"`
	JSON    string            `yaml:"json"`
	// ExpectStatus are the statuses a read accepts; another fails the
	// entry, naming it. Default: 2xx with JSON, any status without.
	ExpectStatus []int `yaml:"expect_status"`
}

// PerWorker reports whether each worker has a connection of its own
// (`connection: per-worker`, or the epoll client's).
func (s *Spec) PerWorker() bool { return s.Connection == ConnectionPerWorker || s.Epoll() }

// EmbeddedDSN is the `dsn:` value that starts a throwaway cluster.
const EmbeddedDSN = "embedded"

// Plan keys of the postgres runner: its section, and the `verify:` list
// any group may carry.
const (
	Section       = "postgres"
	VerifySection = "verify"
)

// Kind is `runner: postgres`, statements through pgx driven by the
// engine's loops. It brings the `verify:` addon: a list of reconciling
// queries any group may carry, run after each of its steps.
func Kind() runners.Kind {
	return runners.Kind{
		Name:      "postgres",
		Sections:  map[string]func() any{Section: func() any { return &Spec{} }},
		Validate:  validateGroup,
		New:       newRunner,
		Shardable: shardable,
		Addons: []runners.Addon{{
			Section: VerifySection, New: func() any { return &[]Verify{} },
			Validate: ValidateVerify, AfterStep: VerifyChecks, Merged: VerifyMerged,
		}},
	}
}

// shardable refuses, in a distributed run, an embedded database (each
// shard would load a cluster of its own) and the epoll client (its event
// loops do not split the load over shards).
func shardable(g *plan.Group) error {
	spec := plan.Section[Spec](g, Section)
	if spec == nil {
		return nil
	}
	pos, key := g.SectionPos[Section], "group "+g.ID+": "+Section
	var errs []error
	if spec.DSN == EmbeddedDSN {
		errs = append(errs, plan.Errorf(pos, key+".dsn", "%s gives each shard a database of its own: give the one database's dsn", EmbeddedDSN))
	}
	if spec.Epoll() {
		errs = append(errs, plan.Errorf(pos, key+".client", "%s does not run sharded (run --shard, kube): use client: %s", ClientEpoll, ClientPgx))
	}
	return errors.Join(errs...)
}

// validateGroup reports every problem of a postgres group at once (its
// own `verify:` list is the addon's to check).
func validateGroup(g *plan.Group) []error {
	spec := plan.Section[Spec](g, Section)
	if spec == nil {
		return []error{plan.Errorf(g.Pos, "group "+g.ID+": postgres", "missing (required for runner postgres)")}
	}
	errs := append(g.LoopProblems(), g.NoData()...)
	key := "group " + g.ID + ": postgres"
	errs = append(errs, spec.pipelineLoadProblems(g, g.SectionPos[Section], key)...)
	errs = append(errs, spec.epollLoadProblems(g, g.SectionPos[Section], key)...)
	return append(errs, spec.validate(g.SectionPos[Section], key, g.VarNames(), probeNames(g))...)
}

// Validate reports every problem of the section; pos is where it starts
// and key names it in messages.
func (s *Spec) Validate(pos plan.Pos, key string) []error { return s.validate(pos, key, nil, nil) }

// validate is Validate for a group whose vars (vars:) are named step and
// whose probes (probes:) are named probes.
func (s *Spec) validate(pos plan.Pos, key string, step, probes []string) []error {
	var errs []error
	bad := func(k, format string, args ...any) {
		errs = append(errs, plan.Errorf(pos, key+"."+k, format, args...))
	}
	if strings.TrimSpace(s.DSN) == "" {
		bad("dsn", "want a postgres:// URL or %q", EmbeddedDSN)
	}
	if s.Pool < 0 {
		bad("pool", "want 0 (the workers) or more, got %d", s.Pool)
	}
	switch s.Connection {
	case "", ConnectionPool:
	case ConnectionPerWorker:
		if s.Pool != 0 {
			bad("pool", "is the size of the shared pool; with connection: %s each worker has a connection of its own", ConnectionPerWorker)
		}
	default:
		bad("connection", "want %q (workers share a pool, the default) or %q (a connection per worker), got %q", ConnectionPool, ConnectionPerWorker, s.Connection)
	}
	errs = append(errs, s.pipelineProblems(pos, key)...)
	errs = append(errs, s.clientProblems(pos, key)...)
	switch {
	case len(s.Statements) == 0 && len(s.Flow) == 0:
		bad("statements", "want at least one statement (or a flow: of steps)")
	case len(s.Statements) > 0 && len(s.Flow) > 0:
		bad("flow", "give statements (a weighted mix) or flow (a sequence), not both")
	}
	fl, problems := s.compileFlow()
	for _, p := range problems {
		bad(p.Key, "%s", p.Msg)
	}
	stmts, list := s.sent()
	for i, st := range stmts {
		k := fmt.Sprintf("%s[%d]", list, i)
		if (st.SQL == "") == (len(st.Tx) == 0) {
			bad(k, "want exactly one of sql and tx")
		}
		if st.Weight < 0 {
			bad(k+".weight", "want 0 or more, got %d", st.Weight)
		}
		if p := plan.NameProblem(st.Name); p != "" {
			bad(k+".name", "%s", p)
		}
		errs = append(errs, st.placeProblems(pos, key+"."+k, list)...)
		for j, a := range st.Args {
			if _, err := parseArg(a, argScope{vars: varsBefore(fl, i), inFlow: fl != nil, step: step}); err != nil {
				bad(fmt.Sprintf("%s.args[%d]", k, j), "%v", err)
			}
		}
	}
	return append(errs, validateVerify(pos, key+".verify", s.Verify, verifyScope{hasDSN: true, vars: step, probes: probes})...)
}

// ValidateVerify reports the problems of a group's own `verify:` list. For
// groups of other runners every sql entry needs a dsn. It is the `verify:`
// addon's Validate, run on every group.
func ValidateVerify(g *plan.Group) []error {
	list := plan.Section[[]Verify](g, VerifySection)
	if list == nil {
		return nil
	}
	return validateVerify(g.SectionPos[VerifySection], "group "+g.ID+": verify", *list, verifyScope{
		hasDSN: g.Runner == Kind().Name, vars: g.VarNames(), probes: probeNames(g),
	})
}

// verifyScope is what a group offers its verify entries: a database to
// ask (hasDSN: the group's runner has one), its vars and its probes.
type verifyScope struct {
	hasDSN bool
	vars   []string
	probes []string
}

// probeNames are the names of g's probes, which a verify entry's `probe:`
// may read.
func probeNames(g *plan.Group) []string {
	names := make([]string, len(g.Probes))
	for i, p := range g.Probes {
		names[i] = p.Name
	}
	return names
}

// validateVerify reports the problems of a verify list at pos, named key,
// of a group that offers sc.
func validateVerify(pos plan.Pos, key string, list []Verify, sc verifyScope) []error {
	var errs []error
	for i, v := range list {
		k, at := fmt.Sprintf("%s[%d]", key, i), pos
		if v.Pos.Line > 0 {
			at = v.Pos // the entry's own line
		}
		if p := plan.NameProblem(v.Name); p != "" {
			errs = append(errs, plan.Errorf(at, k+".name", "%s", p))
		}
		errs = append(errs, v.sourceProblems(at, k, sc)...)
		errs = append(errs, v.validateOp(at, k)...)
		errs = append(errs, v.textProblems(sc.vars, at, k)...)
	}
	return errs
}

// sqlProblems are the problems of an entry whose source is sql.
func (v Verify) sqlProblems(at plan.Pos, k string, hasDSN bool) []error {
	switch {
	case strings.TrimSpace(v.SQL) == "":
		return []error{plan.Errorf(at, k+".sql", "want a query")}
	case v.DSN == "" && !hasDSN:
		return []error{plan.Errorf(at, k+".dsn", "want the dsn of the database to ask")}
	case v.DSN == EmbeddedDSN && !hasDSN:
		return []error{plan.Errorf(at, k+".dsn", "%q is the cluster a postgres group starts for itself; here, give the dsn of the database to ask", EmbeddedDSN)}
	}
	return nil
}

// argGen produces one statement argument for a worker.
type argGen func(w *worker) any

// argScope is what an arg's $var:NAME may read: the variables a flow's
// earlier steps capture (inFlow: the arg is a flow step's), and the
// group's vars (vars:), whose step values the runner holds.
type argScope struct {
	vars   []string
	inFlow bool
	step   []string
}

// parseArg compiles one `args:` entry.
func parseArg(s string, sc argScope) (argGen, error) {
	if !strings.HasPrefix(s, "$") {
		return func(*worker) any { return s }, nil
	}
	if strings.HasPrefix(s, "$$") {
		lit := s[1:]
		return func(*worker) any { return lit }, nil
	}
	name, rest, _ := strings.Cut(s[1:], ":")
	switch name {
	case "seq":
		return func(w *worker) any { return int64(w.r.seq.Next()) }, nil
	case "worker":
		return func(w *worker) any { return int64(w.id) }, nil
	case "uuid":
		return func(w *worker) any { return w.uuid() }, nil
	case "now":
		return func(*worker) any { return nowUTC() }, nil
	case "rand_int":
		return parseRandInt(s, rest)
	case "var":
		return parseVar(s, rest, sc)
	case "rand_text":
		n, err := strconv.Atoi(rest)
		if err != nil || n <= 0 || n > 1<<20 {
			return nil, fmt.Errorf("bad %q: want $rand_text:N with N from 1 to 1048576", s)
		}
		return func(w *worker) any { return w.randText(n) }, nil
	}
	return nil, fmt.Errorf("unknown generator %q: want $seq, $worker, $rand_int:LO:HI, $rand_text:N, $uuid, $now "+
		"or $var:NAME (write $$ for a literal $)", s)
}

func parseRandInt(s, rest string) (argGen, error) {
	los, his, ok := strings.Cut(rest, ":")
	lo, err1 := strconv.ParseInt(los, 10, 64)
	hi, err2 := strconv.ParseInt(his, 10, 64)
	if !ok || err1 != nil || err2 != nil || hi < lo {
		return nil, fmt.Errorf("bad %q: want $rand_int:LO:HI with LO <= HI", s)
	}
	span := uint64(hi-lo) + 1
	return func(w *worker) any {
		if span == 0 { // the whole int64 range
			return int64(w.rng.Uint64())
		}
		return lo + int64(w.rng.Uint64N(span))
	}, nil
}

// maxParam is the highest $N placeholder in sql, outside quoted literals
// and identifiers.
func maxParam(sql string) int {
	highest := 0
	var quote byte
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '$':
			j := i + 1
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			if n, err := strconv.Atoi(sql[i+1 : j]); err == nil && n > highest {
				highest = n
			}
			i = j - 1
		}
	}
	return highest
}
