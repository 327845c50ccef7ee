package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
)

// Loop is one set of workers and how their operations are recorded. The
// engine drives a group's workers with it; a runner that composes several
// loads (shutdown: HTTP workers around a signal) drives its own.
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
	// say). The wait is not part of any operation's latency. An
	// Outcome.Backoff asks for one too; the longer wait wins.
	Backoff func(out runners.Outcome) time.Duration
	// Count, when set, ends the load after a number of operations
	// (iterations: in all, or per worker): a worker asks it before each
	// operation and returns when it says no.
	Count *Count
	// Stop, when set, ends the load early: a worker calls it when it has
	// nothing left to send (Outcome.Exhausted).
	Stop func()
	// Start, when set, is when an open loop's arrival 0 is due: the
	// step's start, which several loads share (zero: when OpenLoop is
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

// makeWorkers asks the runner for the step's workers, before the step's
// start time: a shard is prepared (its connections made) when it says it
// is ready, so its first arrivals are not late. A Driver makes its own.
func (st *stepRun) makeWorkers(ctx context.Context) error {
	if _, ok := st.runner.(runners.Driver); ok {
		return nil
	}
	n := st.env.Load.Workers()
	// Each worker holds a connection: the target's fd growth per worker is
	// its fds per connection.
	st.env.SetUnits(n)
	workers, err := NewWorkers(ctx, st.runner, st.env, n)
	if err != nil {
		return fmt.Errorf("group %s: %w", st.s.group.ID, err)
	}
	st.workers = workers
	return nil
}

// startLoad starts the step's load goroutines: the runner's own Drive, or
// the engine's closed or open loop over the workers makeWorkers made. The
// returned group is done when every load goroutine has returned.
func (st *stepRun) startLoad(loadCtx, opCtx context.Context) *sync.WaitGroup {
	var wg sync.WaitGroup
	if d, ok := st.runner.(runners.Driver); ok {
		st.env.Ops = opCtx
		wg.Go(func() {
			defer st.env.Contain()
			err := d.Drive(loadCtx, st.env)
			if loadCtx.Err() != nil {
				return
			}
			if err != nil {
				st.event(artifacts.EventNote, "runner stopped: "+err.Error())
			}
			st.finishEarly() // a driver that returns has done its work
		})
		return &wg
	}
	ownCtx, endLoad := context.WithCancel(loadCtx)
	l := Loop{Env: st.env, Workers: st.workers, Count: NewCount(st.spec.Iterations, st.spec.PerWorker), Stop: endLoad}
	if st.env.Load.OpenLoop() {
		OpenLoop(ownCtx, opCtx, l, &wg)
	} else {
		ClosedLoop(ownCtx, opCtx, l, &wg)
	}
	go st.finishWhenDone(loadCtx, &wg, endLoad)
	return &wg
}

// finishWhenDone ends the step when its load returns by itself (its count
// is done, or its data ran out) rather than because the step's time ran
// out: the measured time is then the time the work took.
func (st *stepRun) finishWhenDone(loadCtx context.Context, wg *sync.WaitGroup, endLoad context.CancelFunc) {
	wg.Wait()
	if loadCtx.Err() == nil {
		st.finishEarly()
	}
	endLoad()
}

// runOp performs one operation of w that was due at due (zero: now),
// records it, and returns when it ended. With checkLate, an operation
// started more than LateAfter after its due time is counted as late (the
// open loop fell behind its schedule).
func (l *Loop) runOp(ctx context.Context, w runners.Worker, rec *runners.Recorder, due time.Time, checkLate bool) (time.Time, runners.Outcome) {
	called := time.Now()
	if due.IsZero() {
		due = called
	} else if checkLate && called.Sub(due) > LateAfter {
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

// ClosedLoop runs each of l's workers back to back until loadCtx ends;
// operations run under opCtx, which outlives loadCtx by the grace for
// in-flight work. An operation is due when its worker asks for it, so
// latency equals service time plus any wait the worker itself does. The
// worker asks again as soon as an operation ends, so that end is the next
// one's due time (one clock read per operation; after a pause or a
// backoff, a fresh one). wg is done when every worker has returned.
func ClosedLoop(loadCtx, opCtx context.Context, l Loop, wg *sync.WaitGroup) {
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
				d := out.Backoff
				if l.Backoff != nil {
					d = max(d, l.Backoff(out))
				}
				if d > 0 {
					if !runners.SleepUntil(loadCtx, end.Add(d)) {
						return
					}
					due = time.Time{}
				}
			}
		})
	}
}

// LateAfter is how long after its due time an open-loop arrival may be
// sent before it counts as late (runners.LateAfter).
const LateAfter = runners.LateAfter

// CounterLate counts late arrivals while a step runs (runners.CounterLate).
const CounterLate = runners.CounterLate

// DropAfter is how late an open-loop arrival may still be sent
// (runners.DropAfter).
const DropAfter = runners.DropAfter

// OpenLoop dispatches arrivals at l.Env.Load.Rate: arrival i is due at
// start + i/rate + paused time, computed from the start and never from the
// previous arrival, so a slow server cannot slow the schedule. An arrival
// that finds every worker busy (max_in_flight reached), or that the
// dispatcher reaches more than DropAfter late, is dropped and counted:
// every arrival due before the load was told to stop (the gate's End) is
// either sent or dropped, and the count of drops is arithmetic, never a
// pass per arrival. Latency is measured from the due time. wg is done
// when the dispatcher and every worker have returned.
func OpenLoop(loadCtx, opCtx context.Context, l Loop, wg *sync.WaitGroup) {
	// A slot is taken when an arrival is dispatched and given back when its
	// operation ends, after its worker is back on the idle stack, so a taken
	// slot always finds an idle worker and a send to it never blocks. freed
	// wakes a dispatcher that found every slot taken.
	d := &dispatcher{
		env:   l.Env,
		slots: make(chan struct{}, len(l.Workers)),
		jobs:  make([]chan time.Time, len(l.Workers)),
		freed: make(chan struct{}, 1),
		limit: math.MaxInt64,
	}
	for i := len(l.Workers) - 1; i >= 0; i-- {
		d.jobs[i] = make(chan time.Time, 1)
		d.idle.push(i) // worker 0 on top: the first arrivals go to the first workers
	}
	if l.Count != nil && l.Count.left.Load() > 0 {
		d.limit = l.Count.left.Load() // iterations: that many arrivals, sent or dropped
	}
	d.shard = l.Env.Shard
	stop := l.Stop
	l.Stop = func() { // the data ran out: what is due after it is not dropped
		d.ranOut.Store(true)
		if stop != nil {
			stop()
		}
	}
	var workersWG sync.WaitGroup
	for i, w := range l.Workers {
		rec := l.Env.Recorder(i)
		workersWG.Go(func() {
			defer l.Env.Contain()
			for due := range d.jobs[i] {
				l.runOp(opCtx, w, rec, due, true)
				d.idle.push(i)
				<-d.slots
				d.wake()
			}
		})
	}
	// Once the workers are started (a hundred thousand take a while), and
	// not whenever the dispatcher's goroutine first runs.
	d.start = l.Start
	if d.start.IsZero() {
		d.start = time.Now()
	}
	d.start = startOf(l.Env, d.start)
	wg.Go(func() {
		d.run(loadCtx)
		for _, jobs := range d.jobs {
			close(jobs)
		}
		workersWG.Wait()
	})
}

// dispatcher is the open loop's schedule: it hands due arrivals to free
// workers and counts the rest as dropped.
type dispatcher struct {
	env   *runners.StepEnv
	slots chan struct{}
	// jobs are the workers' inboxes, and idle the workers free to take an
	// arrival, the most recently freed on top: it gets the next one, so
	// at a low rate a few workers (and their warm connections) do the work
	// and the server sees about as many connections as requests in flight,
	// not one per max_in_flight.
	jobs  []chan time.Time
	idle  idleStack
	freed chan struct{}

	start time.Time     // arrival 0's due time
	shift time.Duration // paused time since start: it moves the schedule
	next  int64         // the next arrival not yet sent or dropped
	limit int64         // arrivals in all (iterations), else MaxInt64
	// shard stripes the schedule (runners.Shard): local arrival k is the
	// global arrival shard.Global(k).
	shard runners.Shard
	// ranOut is set when a worker had nothing left to send: the load
	// ended itself, and nothing due after counts as dropped.
	ranOut atomic.Bool
}

// maxArrival bounds arrival indexes, so that an absurd rate cannot
// overflow the counts of arrivals: up to it a float64 holds them exactly,
// and a hundred repetitions' drops still add up within an int64. (Past
// it, at 1e12/s after 2.5 hours, drops are counted one per pass.)
const maxArrival = int64(1) << 53

// saturatedWait bounds a saturated dispatcher's wait for a free worker,
// so that it looks at the pause gate and the schedule again now and then.
const saturatedWait = 50 * time.Millisecond

func (d *dispatcher) run(ctx context.Context) {
	gate := d.env.Gate()
	pausedBefore := gate.PausedTotal()
	// Every pause, whenever it began, moves the rest of the schedule.
	reshift := func() { d.shift = gate.PausedTotal() - pausedBefore }
	defer func() {
		if ctx.Err() != nil && !d.ranOut.Load() {
			reshift()
			d.dropUnsent()
		}
	}()
	for d.next < d.limit {
		// Checked on every pass, however far behind the schedule is.
		if _, err := gate.Wait(ctx); err != nil || ctx.Err() != nil {
			return
		}
		reshift()
		now := time.Now()
		if due := d.due(d.next); due.After(now) {
			if !runners.SleepUntil(ctx, due) {
				return
			}
			continue
		}
		d.dropBefore(now.Add(-DropAfter)) // the generator fell too far behind
		if !d.catchUp(now) {
			continue
		}
		if !d.awaitFree(ctx) {
			return
		}
		reshift()
		d.dropBefore(time.Now())
	}
}

// due is when arrival i is due.
func (d *dispatcher) due(i int64) time.Time {
	g := d.shard.Global(i)
	return d.start.Add(d.shift + time.Duration(float64(g)*float64(time.Second)/d.env.Load.Rate))
}

// lastDue is the index of the last arrival due at now (at least d.next,
// which is due). Past maxArrival (or at an infinite rate, where the
// product may be NaN) every arrival is due: the index grows by what is
// sent or dropped.
func (d *dispatcher) lastDue(now time.Time) int64 {
	last := maxArrival
	if f := now.Sub(d.start.Add(d.shift)).Seconds() * d.env.Load.Rate; f < float64(maxArrival) {
		last = d.shard.LocalBefore(int64(f)) - 1
	}
	return min(max(last, d.next), d.limit-1)
}

// dispatchBatch bounds the arrivals a pass of the dispatcher hands out
// before it yields. At a rate beyond what the machine sends, with workers
// to spare, it would otherwise wake thousands of them at once, and the
// engine's clock would wait behind their queue (the step outliving its
// time); yielding, it hands arrivals out no faster than the workers run,
// and those it cannot reach in time are dropped (DropAfter).
const dispatchBatch = 64

// catchUp sends the arrivals due by now, in order, while a worker is
// free; the first that finds none, and every arrival due after it up to
// now, are dropped in one count. It sends at most dispatchBatch arrivals,
// and then yields, so however far behind the schedule is (an absurd rate)
// it returns quickly; the rest wait for the next pass. It reports whether
// it dropped any.
func (d *dispatcher) catchUp(now time.Time) bool {
	last := d.lastDue(now)
	for budget := min(cap(d.slots), dispatchBatch); d.next <= last; {
		select {
		case d.slots <- struct{}{}:
			d.jobs[d.idle.pop()] <- d.due(d.next)
			d.next++
			if budget--; budget <= 0 {
				runtime.Gosched()
				return false
			}
		default:
			d.env.Recorder(0).Drop(last - d.next + 1)
			d.next = last + 1
			return true
		}
	}
	return false
}

// awaitFree waits, after drops, until a worker frees its slot (or a short
// while), rather than spin counting drops. It returns false when ctx
// ended.
func (d *dispatcher) awaitFree(ctx context.Context) bool {
	t := time.NewTimer(saturatedWait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-d.freed:
	case <-t.C:
	}
	return true
}

// dropBefore drops the arrivals due before t, in one count: after a wait
// for a free worker (awaitFree), those that came while every worker was
// busy; before a pass, those more than DropAfter late; at the end, those
// never sent (dropUnsent).
func (d *dispatcher) dropBefore(t time.Time) {
	if d.next >= d.limit || !d.due(d.next).Before(t) {
		return
	}
	last := d.lastDue(t)
	if last > d.next && !d.due(last).Before(t) {
		last-- // due at t exactly: it may take the slot just freed
	}
	d.env.Recorder(0).Drop(last - d.next + 1)
	d.next = last + 1
}

// dropUnsent drops the arrivals due before the load was told to stop that
// were never sent: however far behind the dispatcher was, and however late
// it saw the stop, the step's due arrivals are all sent or dropped.
func (d *dispatcher) dropUnsent() {
	end := d.env.Gate().Ended()
	if end.IsZero() {
		end = time.Now() // stopped from outside the step (its context)
	}
	d.dropBefore(end)
}

// wake tells a waiting dispatcher that a worker is free.
func (d *dispatcher) wake() {
	select {
	case d.freed <- struct{}{}:
	default:
	}
}

// idleStack is the open loop's idle workers, last freed on top.
type idleStack struct {
	mu  sync.Mutex
	ids []int
}

func (s *idleStack) push(i int) {
	s.mu.Lock()
	s.ids = append(s.ids, i)
	s.mu.Unlock()
}

// pop takes the most recently freed worker; the caller holds a slot, so
// there is one.
func (s *idleStack) pop() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.ids[len(s.ids)-1]
	s.ids = s.ids[:len(s.ids)-1]
	return i
}
