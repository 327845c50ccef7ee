package loop

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benchtui/benchtui/runners"
)

// Open dispatches arrivals at l.Env.Load.Rate (or its stages, Schedule):
// arrival i is due at start + i/rate + paused time, computed from the start and never from the
// previous arrival, so a slow server cannot slow the schedule. An arrival
// that finds every worker busy (max_in_flight reached), or that the
// dispatcher reaches more than DropAfter late, is dropped and counted:
// every arrival due before the load was told to stop (the gate's End) is
// either sent or dropped, and the count of drops is arithmetic, never a
// pass per arrival. Latency is measured from the due time. wg is done
// when the dispatcher and every worker have returned.
func Open(loadCtx, opCtx context.Context, l Loop, wg *sync.WaitGroup) {
	// A slot is taken when an arrival is dispatched and given back when its
	// operation ends, after its worker is back on the idle stack, so a taken
	// slot always finds an idle worker and a send to it never blocks. freed
	// wakes a dispatcher that found every slot taken.
	d := &dispatcher{
		env:   l.Env,
		sched: ScheduleOf(l.Env.Load),
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
	d.sched.Stripe = l.Env.Shard
	// Once the workers are started (a hundred thousand take a while), and
	// not whenever the dispatcher's goroutine first runs.
	d.sched.Start = startOf(l.Env, l.Start)
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

	// sched is when each arrival is due: from the step's start, striped
	// for a shard (runners.Shard: local arrival k is the global arrival
	// Shard.Global(k)) and moved by the time paused.
	sched Schedule
	next  int64 // the next arrival not yet sent or dropped
	limit int64 // arrivals in all (iterations), else MaxInt64
	// ranOut is set when a worker had nothing left to send: the load
	// ended itself, and nothing due after counts as dropped.
	ranOut atomic.Bool
}

// saturatedWait bounds a saturated dispatcher's wait for a free worker,
// so that it looks at the pause gate and the schedule again now and then.
const saturatedWait = 50 * time.Millisecond

func (d *dispatcher) run(ctx context.Context) {
	gate := d.env.Gate()
	d.sched.PausedBefore = gate.PausedTotal()
	// Every pause, whenever it began, moves the rest of the schedule.
	reshift := func() { d.sched.Paused(gate.PausedTotal()) }
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
		if due := d.sched.Due(d.next); due.After(now) {
			if !runners.SleepUntil(ctx, due) {
				return
			}
			continue
		}
		d.dropBefore(DropLine(now)) // the generator fell too far behind
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

// lastDue is the index of the last arrival due at now (at least d.next,
// which is due), within the limit. Past MaxArrival every arrival is due
// (Schedule.LastDue): the index grows by what is sent or dropped.
func (d *dispatcher) lastDue(now time.Time) int64 {
	return min(max(d.sched.LastDue(now, d.next), d.next), d.limit-1)
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
			d.jobs[d.idle.pop()] <- d.sched.Due(d.next)
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
	if d.next >= d.limit || !d.sched.Due(d.next).Before(t) {
		return
	}
	last := d.lastDue(t)
	if last > d.next && !d.sched.Due(last).Before(t) {
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

// startOf is when a step's open-loop arrival 0 is due: its shard's start
// time, else start, else now.
func startOf(env *runners.StepEnv, start time.Time) time.Time {
	if env.Shard.Active() && !env.Shard.StartAt.IsZero() {
		return env.Shard.StartAt
	}
	if start.IsZero() {
		return time.Now()
	}
	return start
}
