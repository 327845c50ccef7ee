package pgload

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// verifyTimeout bounds one verify query.
const verifyTimeout = time.Minute

// VerifyChecks runs the `verify:` list a group of any runner may carry (an
// HTTP ingestion group reconciling rows, say) and appends one check per
// entry. It runs after a step, once the step's counts in sum are final
// (they fill "{{requests}}" and "{{errors}}"). Groups without the list
// and postgres groups (whose runner's Finish runs it with its own pool) are
// left alone. A query that cannot run is a failed check; the error returned
// joins those failures, for a log line.
func VerifyChecks(ctx context.Context, g *plan.Group, sum runners.Summary) ([]runners.Check, error) {
	if g == nil || g.Runner == Kind().Name {
		return nil, nil
	}
	list := plan.Section[[]Verify](g, VerifySection)
	if list == nil || len(*list) == 0 {
		return nil, nil
	}
	return verifyAll(ctx, *list, verifyEnv{probes: g.Probes}, sum)
}

// VerifyMerged is the Addon's Merged hook: in a distributed run, every
// verify entry of g (its postgres section's and its own `verify:` list)
// runs once per step of the merge, with the whole run's counts, instead
// of on each shard. A postgres group's entries without a dsn ask the
// group's database (not an embedded one: it went with its shard).
func VerifyMerged(ctx context.Context, g *plan.Group, sum runners.Summary) ([]runners.Check, error) {
	var list []Verify
	dsn := ""
	if g.Runner == Kind().Name {
		if spec := plan.Section[Spec](g, Section); spec != nil {
			list, dsn = append(list, spec.Verify...), spec.DSN
		}
	}
	if own := plan.Section[[]Verify](g, VerifySection); own != nil {
		list = append(list, *own...)
	}
	if len(list) == 0 {
		return nil, nil
	}
	if dsn == EmbeddedDSN {
		dsn = ""
	}
	return verifyAll(ctx, list, verifyEnv{dsn: dsn, probes: g.Probes}, sum)
}

// verifyEnv is what a group's verify entries read besides their own
// sources: its pool (nil outside a running postgres group), its
// database's dsn (a merge's entries without one ask it), its probes and
// its embedded cluster's dsn ("" without one).
type verifyEnv struct {
	pool        *pgxpool.Pool
	dsn         string
	probes      []plan.Probe
	embeddedDSN string
}

// verifyAll runs each entry: a sql entry on env's pool (entries without a
// dsn) or on a connection to its own dsn, opened once per dsn; the others
// from their sources (verifysource.go).
func verifyAll(ctx context.Context, list []Verify, env verifyEnv, sum runners.Summary) ([]runners.Check, error) {
	conns := map[string]*pgx.Conn{}
	defer func() {
		for _, c := range conns {
			closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			_ = c.Close(closeCtx)
			cancel()
		}
	}()
	var errs []error
	checks := make([]runners.Check, 0, len(list))
	for _, v := range list {
		name := v.Name
		if name == "" {
			name = v.defaultName()
		}
		v = v.expanded(sum)
		c, err := v.check(ctx, name, sum, func(ctx context.Context) (string, error) {
			return v.read(ctx, env, conns)
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("verify %q: %w", name, err))
		}
		checks = append(checks, c)
	}
	return checks, errors.Join(errs...)
}

// read reads the entry's value once, within its timeout.
func (v Verify) read(ctx context.Context, env verifyEnv, conns map[string]*pgx.Conn) (string, error) {
	if v.Probe != "" {
		return v.readProbe(ctx, env) // within the probe's own timeout
	}
	ctx, cancel := context.WithTimeout(ctx, v.readTimeout())
	defer cancel()
	switch {
	case v.HTTP != nil:
		return v.HTTP.read(ctx)
	case len(v.Command) > 0:
		return v.readCommand(ctx)
	}
	return verifyOne(ctx, v, env.pool, env.dsn, conns)
}

func verifyOne(ctx context.Context, v Verify, pool *pgxpool.Pool, dsn string, conns map[string]*pgx.Conn) (string, error) {
	switch {
	case v.DSN != "":
		c := conns[v.DSN]
		if c == nil {
			var err error
			if c, err = pgx.Connect(ctx, v.DSN); err != nil {
				return "", fmt.Errorf("connecting to %s: %w", plan.RedactURLs(v.DSN), redactErr(err, v.DSN))
			}
			conns[v.DSN] = c
		}
		return firstValue(ctx, c.PgConn(), v.SQL)
	case pool != nil:
		c, err := pool.Acquire(ctx)
		if err != nil {
			return "", fmt.Errorf("acquiring a connection: %w", err)
		}
		defer c.Release()
		return firstValue(ctx, c.Conn().PgConn(), v.SQL)
	case dsn == "":
		return "", errors.New("no dsn: outside a postgres group (or on a merge of an embedded database's shards) each verify entry needs its own dsn")
	default: // a merge: no pool, the group's dsn
		v.DSN = dsn
		return verifyOne(ctx, v, nil, "", conns)
	}
}

// firstValue is the text of the first column of the first row of sql's
// first result, "NULL" for a null and "" without rows. It goes straight to
// the connection's simple protocol, where every value comes back as text
// whatever its type: pgx's Query would run a statement the load prepared
// under the same text instead, whose results are binary.
func firstValue(ctx context.Context, pc *pgconn.PgConn, sql string) (string, error) {
	mrr := pc.Exec(ctx, sql)
	got := ""
	if mrr.NextResult() {
		rr := mrr.ResultReader()
		if rr.NextRow() {
			if raw := rr.Values(); len(raw) > 0 {
				got = "NULL"
				if raw[0] != nil {
					got = string(raw[0])
				}
			}
		}
		if _, err := rr.Close(); err != nil {
			_ = mrr.Close()
			return "", err
		}
	}
	return got, mrr.Close()
}

// judge compares a verify query's value with its expectation: numerically
// when both are numbers, else as strings. value is the number got (0 when
// it is not one).
func judge(got, expect string, sum runners.Summary) (ok bool, value float64, note string) {
	expect = expandVerify(expect, sum)
	gotNum, gotErr := strconv.ParseFloat(strings.TrimSpace(got), 64)
	if gotErr == nil {
		value = gotNum
	}
	switch want, wantErr := strconv.ParseFloat(expect, 64); {
	case expect == "":
		ok = true
	case gotErr == nil && wantErr == nil:
		ok = gotNum == want || math.Abs(gotNum-want) <= 1e-9*math.Max(math.Abs(gotNum), math.Abs(want))
	default:
		ok = got == expect
	}
	switch {
	case !ok:
		note = fmt.Sprintf("got %s, want %s", plan.QuoteValue(got), plan.QuoteValue(expect))
	case gotErr != nil:
		note = "got " + plan.QuoteValue(got)
	}
	return ok, value, note
}
