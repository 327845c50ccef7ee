package loop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benchtui/benchtui/runners"
)

// Loop is one set of workers and how their operations are recorded. The
// engine drives a group's workers with it; a runner that composes several
// loads (loads; shutdown: HTTP workers around a signal) drives its own.
type Loop struct {
	Env     *runners.StepEnv
	Workers []runners.Worker
	// Record records one finished operation of the worker whose recorder is
	// rec: due is when it was due, called when Do was called, end when it
	// returned. Nil records it with rec.Done from due and the Outcome's
	// Sent (else called).
	Record func(rec *runners.Recorder, due, called, end time.Time, out runners.Outcome)
	// Backoff, when set, is how long a closed-loop worker waits after an
	// operation before asking for the next (after a refused connection,
	// say). The wait is not part of any operation's latency.
	Backoff func(out runners.Outcome) time.Duration
	// Count, when set, ends the load after a number of operations
	// (iterations: in all, or per worker): a worker asks it before each
	// operation and returns when it says no.
	Count *Count
	// Stop, when set, ends the load early: a worker calls it when it has
	// nothing left to send (Outcome.Exhausted).
	Stop func()
	// Start, when set, is when an open loop's arrival 0 is due: the
	// step's start, which several loads share (zero: when Open is
	// called; a shard's start time wins over both).
	Start time.Time
}

// Count is a step's fixed number of operations: a total shared by every
// worker (iterations), or a number for each (per_worker_iterations). Each operation takes a ticket first, so
// exactly the count is performed unless the step's time (max_duration)
// runs out before.
type Count struct {
	left      atomic.Int64
	perWorker int64
}

// NewCount returns the count of a step, or nil when it has none.
func NewCount(total, perWorker int64) *Count {
	if total <= 0 && perWorker <= 0 {
		return nil
	}
	c := &Count{perWorker: perWorker}
	c.left.Store(total)
	return c
}

// take reports whether a worker that has done n operations may do another.
func (c *Count) take(n int64) bool {
	switch {
	case c == nil:
		return true
	case c.perWorker > 0:
		return n < c.perWorker
	}
	return c.left.Add(-1) >= 0
}

// exhausted ends the load when a worker has nothing left to send.
func (l *Loop) exhausted(out runners.Outcome) bool {
	if out.Exhausted && l.Stop != nil {
		l.Stop()
	}
	return out.Exhausted
}

// NewWorkers asks r for n workers, the recorder of each from env. It
// checks ctx before each worker, so that an absurd n can be stopped, and
// grows its slice as workers are made rather than sizing it for n first.
// On an error, ctx's included, the workers made so far are closed.
func NewWorkers(ctx context.Context, r runners.Runner, env *runners.StepEnv, n int) ([]runners.Worker, error) {
	var workers []runners.Worker
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, errors.Join(fmt.Errorf("starting workers: stopped after %d of %d: %w", i, n, err), CloseWorkers(workers))
		}
		w, err := r.NewWorker(int(env.Shard.Global(int64(i))), env.Recorder(i))
		if err != nil {
			return nil, errors.Join(fmt.Errorf("starting worker %d: %w", i, err), CloseWorkers(workers))
		}
		workers = append(workers, w)
	}
	return workers, nil
}

// CloseWorkers closes every worker, once their loop has returned.
func CloseWorkers(workers []runners.Worker) error {
	var errs []error
	for _, w := range workers {
		errs = append(errs, w.Close())
	}
	return errors.Join(errs...)
}

// runOp performs one operation of w that was due at due (zero: now),
// records it, and returns when it ended. With checkLate, an operation
// started more than LateAfter after its due time is counted as late (the
// open loop fell behind its schedule).
func (l *Loop) runOp(ctx context.Context, w runners.Worker, rec *runners.Recorder, due time.Time, checkLate bool) (time.Time, runners.Outcome) {
	called := time.Now()
	if due.IsZero() {
		due = called
	} else if checkLate && Late(due, called) {
		rec.Count(CounterLate, 1)
	}
	l.Env.AddInFlight(1)
	var out runners.Outcome
	if it, ok := w.(runners.Iterator); ok {
		out = it.Iterate(ctx, due)
	} else {
		out = w.Do(ctx)
	}
	end := time.Now()
	l.Env.AddInFlight(-1)
	if l.exhausted(out) || out.Recorded {
		return end, out // nothing was sent, or the worker recorded it
	}
	if out.Err != "" && ctx.Err() != nil {
		// The step's grace ended it, whatever error the cut surfaced as.
		out.Err = runners.KindCanceled
	}
	if l.Record != nil {
		l.Record(rec, due, called, end, out)
		return end, out
	}
	sent := out.Sent
	if sent.IsZero() {
		sent = called
	}
	rec.Record(due, sent, end, out)
	return end, out
}

// Once performs one operation of worker i under ctx and records it, as
// the loops do: for a batch a runner sends by itself (shutdown's frozen
// requests).
func (l *Loop) Once(ctx context.Context, i int) runners.Outcome {
	_, out := l.runOp(ctx, l.Workers[i], l.Env.Recorder(i), time.Time{}, false)
	return out
}

// Closed runs each of l's workers back to back until loadCtx ends;
// operations run under opCtx, which outlives loadCtx by the grace for
// in-flight work. An operation is due when its worker asks for it, so
// latency equals service time plus any wait the worker itself does. The
// worker asks again as soon as an operation ends, so that end is the next
// one's due time (one clock read per operation; after a pause or a
// backoff, a fresh one). wg is done when every worker has returned.
func Closed(loadCtx, opCtx context.Context, l Loop, wg *sync.WaitGroup) {
	for i, w := range l.Workers {
		rec := l.Env.Recorder(i)
		wg.Go(func() {
			defer l.Env.Contain()
			var due time.Time // zero: now
			for n := int64(0); ; n++ {
				waited, err := l.Env.Gate().Wait(loadCtx)
				if err != nil || loadCtx.Err() != nil || !l.Count.take(n) {
					return
				}
				if waited > 0 {
					due = time.Time{}
				}
				end, out := l.runOp(opCtx, w, rec, due, false)
				if out.Exhausted {
					return
				}
				due = end
				if l.Backoff == nil {
					continue
				}
				if d := l.Backoff(out); d > 0 {
					if !runners.SleepUntil(loadCtx, end.Add(d)) {
						return
					}
					due = time.Time{}
				}
			}
		})
	}
}
