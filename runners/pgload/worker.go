package pgload

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// statement is a compiled Statement.
type statement struct {
	name   string
	sql    string   // single statement, or "" for a transaction
	tx     []string // statements of a transaction
	nargs  []int    // per tx statement: how many args it takes
	args   []argGen
	weight int
	// capture: a flow step whose captures read its first row, run as a
	// query (the others are run as Exec, as the mix's are).
	capture bool
}

// compileStatement compiles s; vars are the variables a flow's earlier
// steps capture (inFlow: s is a flow's step).
func compileStatement(s *Statement, sc argScope) (*statement, error) {
	st := &statement{name: s.Name, sql: s.SQL, tx: s.Tx, weight: s.Weight, capture: len(s.Capture) > 0}
	if st.weight == 0 {
		st.weight = 1
	}
	for _, a := range s.Args {
		gen, err := parseArg(a, sc)
		if err != nil {
			return nil, err
		}
		st.args = append(st.args, gen)
	}
	for _, q := range s.Tx {
		st.nargs = append(st.nargs, min(maxParam(q), len(st.args)))
	}
	return st, nil
}

// worker runs operations for one goroutine.
type worker struct {
	r    *runner
	id   int
	rec  *runners.Recorder
	rng  *rand.Rand
	args []any // reused between operations
	eqb  pgx.ExtendedQueryBuilder
	text []byte
	st   *tmpl.State // a flow's virtual user's variables ($var); nil in a mix
	stop stopWatch   // ends the statement in flight when the step's operations are cancelled
	own  *pgx.Conn   // connection: per-worker: the worker's own; nil with a pool
}

var _ runners.Worker = (*worker)(nil)

// Close stops the worker's watch of the step and gives its own
// connection, if it has one, back to the runner.
func (w *worker) Close() error {
	w.stop.close()
	if w.own != nil {
		w.r.conns.give(w.own)
		w.own = nil
	}
	return nil
}

func newWorker(r *runner, id int, rec *runners.Recorder, own *pgx.Conn) *worker {
	seed := uint64(time.Now().UnixNano())
	return &worker{r: r, id: id, rec: rec, rng: rand.New(rand.NewPCG(seed, uint64(id))), own: own}
}

// Do runs one statement of the mix, picked by weight, on a pooled
// connection or the worker's own.
func (w *worker) Do(ctx context.Context) runners.Outcome {
	return w.run(ctx, w.pick(), nil)
}

// stmtFunc runs one statement on conn.
type stmtFunc func(ctx context.Context, conn *pgx.Conn, sql string, args []any) error

// run runs st on a pooled connection, or the worker's own. With rr (a
// flow step that captures) its statements are queries whose first row rr
// keeps.
func (w *worker) run(ctx context.Context, st *statement, rr *rowReader) runners.Outcome {
	return w.withConn(ctx, st.name, func(stepCtx, qctx context.Context, conn *pgx.Conn, sent time.Time) runners.Outcome {
		return w.runOn(stepCtx, qctx, conn, st, rr, sent)
	})
}

// connOp is one operation on conn, sent at sent, its statements run under
// qctx and stopped when stepCtx ends.
type connOp func(stepCtx, qctx context.Context, conn *pgx.Conn, sent time.Time) runners.Outcome

// withConn runs op on a pooled connection, or the worker's own, under
// ctx and the group's timeout. Without a connection (the pool's wait or
// a reconnect failed) it returns the failure, named name, without
// running op.
func (w *worker) withConn(ctx context.Context, name string, op connOp) runners.Outcome {
	qctx, stepCtx := context.Background(), ctx // w.stop ends a statement when ctx ends
	if w.r.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.r.timeout)
		defer cancel()
		qctx = ctx // pgx watches the statement's own deadline
	}
	if w.own != nil {
		return w.withOwn(stepCtx, ctx, qctx, name, op)
	}
	pool := w.r.live.Load()
	if pool == nil {
		return runners.Outcome{Err: "other", Detail: "no connection pool: the step was not prepared", Name: name}
	}
	asked := time.Now()
	conn, err := pool.Acquire(ctx)
	sent := time.Now()
	if w.rec != nil {
		w.rec.Extra("pool_wait", sent.Sub(asked))
	}
	if err != nil {
		out := failure(err, false)
		out.Sent, out.Name = sent, name
		return out
	}
	defer conn.Release()
	return op(stepCtx, qctx, conn.Conn(), sent)
}

// withOwn runs op on the worker's own connection, sent when Do was called
// (no wait for a pool). A connection that was closed (by a stop, a
// timeout or the server) is opened anew under ctx first; op is then sent
// after it, and the wait is part of its latency, as the pool's wait to
// open a connection would be.
func (w *worker) withOwn(stepCtx, ctx, qctx context.Context, name string, op connOp) runners.Outcome {
	var sent time.Time // zero: when Do was called
	if w.own.IsClosed() {
		conn, err := w.r.conns.connect(ctx)
		if err != nil {
			out := failure(err, false)
			out.Name = name
			return out
		}
		w.own, sent = conn, time.Now()
	}
	return op(stepCtx, qctx, w.own, sent)
}

// runOn runs st on conn under qctx, ending it if stepCtx ends, and
// reports the outcome of an operation sent at sent.
func (w *worker) runOn(stepCtx, qctx context.Context, conn *pgx.Conn, st *statement, rr *rowReader, sent time.Time) runners.Outcome {
	if !w.stop.begin(stepCtx, conn.PgConn()) {
		return runners.Outcome{Err: runners.KindCanceled, Sent: sent, Name: st.name}
	}
	args := w.makeArgs(st)
	var err error
	switch {
	case rr != nil && st.sql != "":
		err = rr.run(qctx, conn, st.sql, args)
	case rr != nil:
		err = runTx(qctx, conn, st, args, rr.run)
	case st.sql != "":
		err = w.execOne(qctx, conn, st.sql, args)
	default:
		err = runTx(qctx, conn, st, args, w.execOne)
	}
	out := failure(err, w.stop.end())
	out.Sent, out.Name = sent, st.name
	return out
}

// failure is the Outcome of an operation that ended with err (nil: it
// succeeded): its kind (kindOf) and what err said (detailOf).
func failure(err error, stopped bool) runners.Outcome {
	kind := kindOf(err, stopped)
	return runners.Outcome{Err: kind, Detail: detailOf(err, kind)}
}

// detailOf is what err, of kind kind, said: the message an error sample
// keeps (a client's error has no SQLSTATE, only its words). It is "" for
// no error and for one the step's end cut, whose kind says all.
func detailOf(err error, kind string) string {
	if err == nil || kind == runners.KindCanceled {
		return ""
	}
	return err.Error()
}

// kindOf is err's kind (Classify), "canceled" when the step's operations
// were cancelled while it ran (stopped), "" for no error.
func kindOf(err error, stopped bool) string {
	switch {
	case err == nil:
		return ""
	case stopped:
		return runners.KindCanceled
	}
	return Classify(err)
}

// execOne runs one statement as a prepared statement cached on the
// connection under its own text, on the connection's pgconn: its
// arguments encoded by w's query builder (pgx's own, reused between
// operations) and its rows read to the end without being copied or
// scanned. pgx would send a statement without arguments by the simple
// protocol (parsed and planned anew each time).
func (w *worker) execOne(ctx context.Context, conn *pgx.Conn, sql string, args []any) error {
	sd, err := conn.Prepare(ctx, sql, sql)
	if err != nil {
		return err
	}
	if err = w.eqb.Build(conn.TypeMap(), sd, args); err != nil {
		return err
	}
	rr := conn.PgConn().ExecStatement(ctx, sd, w.eqb.ParamValues, w.eqb.ParamFormats, w.eqb.ResultFormats)
	for rr.NextRow() { // each row read and dropped
	}
	_, err = rr.Close()
	forgetStale(ctx, conn, sql, err)
	return err
}

// forgetStale deallocates sql's prepared statement when err says the
// schema changed under it, so that it is prepared again next time.
func forgetStale(ctx context.Context, conn *pgx.Conn, sql string, err error) {
	if !staleStatement(err) {
		return
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	_ = conn.Deallocate(dctx, sql)
	cancel()
}

// staleStatement reports whether err says a prepared statement no longer
// fits the schema ("cached plan must not change result type") or is gone.
func staleStatement(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "0A000" || pgErr.Code == "26000")
}

// runTx runs st's statements as one transaction, each by run; on any
// failure it rolls back and reports the failure.
func runTx(ctx context.Context, conn *pgx.Conn, st *statement, args []any, run stmtFunc) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	for i, q := range st.tx {
		if err = run(ctx, tx.Conn(), q, args[:st.nargs[i]]); err != nil {
			// Roll back even when ctx has ended, or the connection goes back
			// to the pool inside a failed transaction.
			rbCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			_ = tx.Rollback(rbCtx)
			cancel()
			return err
		}
	}
	return tx.Commit(ctx)
}

// pick picks a statement of the mix by weight.
func (w *worker) pick() *statement { return w.r.stmts[w.pickIndex()] }

// pickIndex picks a statement of the mix by weight: its index.
func (w *worker) pickIndex() int {
	cum := w.r.cum
	if len(cum) == 1 {
		return 0
	}
	n := w.rng.IntN(cum[len(cum)-1])
	for i, c := range cum {
		if n < c {
			return i
		}
	}
	return len(cum) - 1
}

func (w *worker) makeArgs(st *statement) []any {
	w.args = w.args[:0]
	for _, gen := range st.args {
		w.args = append(w.args, gen(w))
	}
	return w.args
}

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func (w *worker) randText(n int) string {
	w.text = w.text[:0]
	for range n {
		w.text = append(w.text, letters[w.rng.IntN(len(letters))])
	}
	return string(w.text)
}

// uuid is a random (version 4) UUID in its text form.
func (w *worker) uuid() string {
	var b [16]byte
	hi, lo := w.rng.Uint64(), w.rng.Uint64()
	for i := range 8 {
		b[i], b[8+i] = byte(hi>>(8*i)), byte(lo>>(8*i))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[c>>4], hex[c&0xf])
	}
	return string(out)
}

func nowUTC() time.Time { return time.Now().UTC() }

// Classify names the kind of a failed operation: "sqlstate_" and the
// server's SQLSTATE code ("sqlstate_23505"; "sqlstate_other" for a code
// no server sends), "timeout" (a deadline),
// "canceled" (the step ended), "refused" (no server), or "other".
func Classify(err error) string {
	var pgErr *pgconn.PgError
	var netErr net.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &pgErr):
		return "sqlstate_" + sqlstate(pgErr.Code)
	case errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) && !errors.Is(err, context.Canceled):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT):
		return "refused"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	}
	return "other"
}

// sqlstate is a server's SQLSTATE as an error kind's suffix: five digits
// or capital letters, as every server sends; anything else (a hostile
// server's control bytes or kilobytes) is "other".
func sqlstate(code string) string {
	if len(code) != 5 || strings.ContainsFunc(code, func(r rune) bool { return (r < '0' || r > '9') && (r < 'A' || r > 'Z') }) {
		return "other"
	}
	return code
}

// redactedError hides a DSN's password from an error's text while keeping
// the error chain for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactErr returns err with every password of a URL or DSN, and the
// password of dsn itself, removed from its text.
func redactErr(err error, dsn string) error {
	if err == nil {
		return nil
	}
	msg := plan.RedactURLs(err.Error())
	if cfg, perr := pgx.ParseConfig(dsn); perr == nil && cfg.Password != "" {
		msg = strings.ReplaceAll(msg, cfg.Password, plan.Redacted)
	}
	return &redactedError{msg: msg, err: err}
}

// abbreviate shortens SQL for messages.
func abbreviate(sql string) string {
	sql = strings.Join(strings.Fields(sql), " ")
	if len(sql) > 80 {
		return sql[:77] + "..."
	}
	return sql
}
