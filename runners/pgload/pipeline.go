package pgload

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// MaxPipeline bounds `postgres.pipeline`, the statements of one batch.
const MaxPipeline = 1000

// pipelineProblems reports a pipeline the section cannot run: a batch is
// of single statements of a mix.
func (s *Spec) pipelineProblems(pos plan.Pos, key string) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, plan.Errorf(pos, key+".pipeline", format, args...))
	}
	switch {
	case s.Pipeline < 0 || s.Pipeline > MaxPipeline:
		bad("want 0 or 1 (no pipeline) up to %d statements in flight, got %d", MaxPipeline, s.Pipeline)
	case s.Pipeline <= 1:
	case len(s.Flow) > 0:
		bad("is for a mix of statements; a flow's steps run one after another")
	case slices.ContainsFunc(s.Statements, func(st Statement) bool { return len(st.Tx) > 0 }):
		bad("is for statements of one sql each; a tx runs its statements one after another")
	}
	return errs
}

// pipelineLoadProblems reports a pipeline the group's load cannot drive:
// the closed loop's operations are batches, whose statements are counted
// one by one, so neither arrivals (rate) nor a count of iterations would
// be what they say.
func (s *Spec) pipelineLoadProblems(g *plan.Group, pos plan.Pos, key string) []error {
	switch {
	case s.Pipeline <= 1:
		return nil
	case g.Load.OpenLoop():
		return []error{plan.Errorf(pos, key+".pipeline", "needs a closed loop (load.concurrency): an arrival of load.rate is one statement")}
	case g.Counted():
		return []error{plan.Errorf(pos, key+".pipeline", "cannot be counted in iterations: each iteration would be a batch of %d statements", s.Pipeline)}
	}
	return nil
}

// pipeWorker is a worker of `pipeline: N`: each of its operations is a
// batch of N statements of the mix, each picked by weight, sent in
// pgconn's pipeline mode in one write, each followed by a Sync (its own
// implicit transaction: its failure fails it alone), and their results
// read in order. Each statement is recorded by itself, under its name:
// its latency runs from when the batch was due, its service time from the
// batch's send, both to the end of its own result. A stop (or a failed
// read) closes the connection at once; the server may still run the
// statements of the batch it had received.
type pipeWorker struct {
	*worker
	batch  []*statement
	sds    []*pgconn.StatementDescription
	errs   []string    // per statement: its error kind, "" when it succeeded
	detail []string    // per statement: what its error said (detailOf)
	ends   []time.Time // per statement: when its result was read
	failed []error     // reused: per statement, its failure in the batch
	due    time.Time   // the batch's
}

var _ runners.Iterator = (*pipeWorker)(nil)

func newPipeWorker(w *worker, n int) *pipeWorker {
	return &pipeWorker{worker: w, batch: make([]*statement, n), sds: make([]*pgconn.StatementDescription, n),
		errs: make([]string, n), detail: make([]string, n), ends: make([]time.Time, n)}
}

// Do runs one batch due now.
func (w *pipeWorker) Do(ctx context.Context) runners.Outcome { return w.Iterate(ctx, time.Time{}) }

// Iterate runs one batch due at due (zero: now) and records each of its
// statements; without a connection, each is recorded as failed so.
func (w *pipeWorker) Iterate(ctx context.Context, due time.Time) runners.Outcome {
	called := time.Now()
	if due.IsZero() {
		due = called
	}
	w.due = due
	for i := range w.batch {
		w.batch[i] = w.pick()
	}
	out := w.withConn(ctx, "", w.sendBatch)
	if !out.Recorded {
		sent := out.Sent
		if sent.IsZero() {
			sent = called
		}
		w.recordAll(sent, time.Now(), out.Err, out.Detail)
	}
	return runners.Outcome{Recorded: true}
}

// recordAll records every statement of the batch as ended at end with
// the error kind kind, which said detail.
func (w *pipeWorker) recordAll(sent, end time.Time, kind, detail string) {
	for i := range w.batch {
		w.errs[i], w.detail[i], w.ends[i] = kind, detail, end
	}
	w.record(sent)
}

// record records each statement of the batch, sent at sent.
func (w *pipeWorker) record(sent time.Time) {
	for i, st := range w.batch {
		w.rec.Record(w.due, sent, w.ends[i], runners.Outcome{Err: w.errs[i], Detail: w.detail[i], Name: st.name})
	}
}

// sendBatch is the connOp of a batch: it prepares the batch's statements
// (once per connection), sends them and reads their results.
func (w *pipeWorker) sendBatch(stepCtx, qctx context.Context, conn *pgx.Conn, _ time.Time) runners.Outcome {
	done := runners.Outcome{Recorded: true}
	if !w.stop.begin(stepCtx, conn.PgConn()) {
		w.recordAll(time.Now(), time.Now(), runners.KindCanceled, "")
		return done
	}
	for i, st := range w.batch {
		sd, err := conn.Prepare(qctx, st.sql, st.sql)
		if err != nil {
			out := failure(err, w.stop.end())
			w.recordAll(time.Now(), time.Now(), out.Err, out.Detail)
			return done
		}
		w.sds[i] = sd
	}
	p := conn.PgConn().StartPipeline(qctx)
	w.sendAll(conn, p)
	sent := time.Now()
	broken := p.Flush() // once set, the connection is gone: the rest fail so
	errs := w.failed[:0]
	for i := range w.batch {
		var err error
		if w.errs[i] == "" {
			err = w.readResult(p, broken)
		}
		if err != nil && conn.PgConn().IsClosed() {
			broken = err
		}
		errs = append(errs, err)
		w.ends[i] = time.Now()
	}
	if broken == nil {
		_ = p.Close()
	} else {
		// pgconn's close drains the connection until the server has run
		// what it received: the rest of the batch, one Sync each.
		_ = conn.PgConn().Conn().Close()
	}
	stopped := w.stop.end()
	for i, err := range errs {
		if err != nil {
			w.errs[i] = kindOf(err, stopped)
			w.detail[i] = detailOf(err, w.errs[i])
			forgetStale(qctx, conn, w.batch[i].sql, err)
		}
	}
	w.failed = errs[:0]
	w.record(sent)
	return done
}

// sendAll queues each statement of the batch and its Sync on p; a
// statement whose args do not encode is not sent, its kind set.
func (w *pipeWorker) sendAll(conn *pgx.Conn, p *pgconn.Pipeline) {
	for i, st := range w.batch {
		w.errs[i], w.detail[i] = "", ""
		if err := w.eqb.Build(conn.TypeMap(), w.sds[i], w.makeArgs(st)); err != nil {
			w.errs[i] = Classify(err)
			w.detail[i] = detailOf(err, w.errs[i])
			continue
		}
		p.SendQueryStatement(w.sds[i], w.eqb.ParamValues, w.eqb.ParamFormats, w.eqb.ResultFormats)
		p.SendPipelineSync()
	}
}

// readResult reads the next statement's rows, dropped unscanned, and then
// its Sync, which is read after a failure too. broken: the connection is
// gone (it closes itself on a failed read or write), nothing more to read.
func (w *pipeWorker) readResult(p *pgconn.Pipeline, broken error) error {
	if broken != nil {
		return broken
	}
	res, err := p.GetResults()
	if err == nil {
		if rr, ok := res.(*pgconn.ResultReader); ok {
			for rr.NextRow() { // each row read and dropped
			}
			_, err = rr.Close()
		} else {
			err = fmt.Errorf("pipeline: got %T, want a statement's result", res)
		}
	}
	if _, serr := p.GetResults(); err == nil {
		err = serr
	}
	return err
}
