package engine

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/benchtui/benchtui/runners"
)

// LateAfter is how long after its due time an open-loop arrival may be
// sent before it counts as late (runners.LateAfter).
const LateAfter = runners.LateAfter

// CounterLate counts late arrivals while a step runs (runners.CounterLate).
const CounterLate = runners.CounterLate

// OpenLoop dispatches arrivals at l.Env.Load.Rate: arrival i is due at
// start + i/rate + paused time, computed from the start and never from the
// previous arrival, so a slow server cannot slow the schedule. An arrival
// that finds every worker busy (max_in_flight reached) is dropped and
// counted: every arrival due before loadCtx ends is either sent or
// dropped. Latency is measured from the due time. wg is done when the
// dispatcher and every worker have returned.
func OpenLoop(loadCtx, opCtx context.Context, l Loop, wg *sync.WaitGroup) {
	// An arrival goes to the most recently idle worker, whose connection
	// is the warmest: at a low rate a few workers do the work and the
	// server sees about as many connections as requests in flight, not
	// one per allowed worker. A worker is taken off idle when handed an
	// arrival and put back when its operation ends, so its jobs channel
	// never holds more than one and a send to it never blocks. freed wakes
	// a dispatcher that found no worker idle.
	d := &dispatcher{
		env:   l.Env,
		idle:  newIdleWorkers(len(l.Workers)),
		jobs:  make([]chan time.Time, len(l.Workers)),
		freed: make(chan struct{}, 1),
		limit: math.MaxInt64,
	}
	if l.Count != nil && l.Count.left.Load() > 0 {
		d.limit = l.Count.left.Load() // iterations: that many arrivals, sent or dropped
	}
	d.shard = l.Env.Shard
	var workersWG sync.WaitGroup
	for i, w := range l.Workers {
		rec := l.Env.Recorder(i)
		jobs := make(chan time.Time, 1)
		d.jobs[i] = jobs
		workersWG.Go(func() {
			defer l.Env.Contain()
			for due := range jobs {
				l.runOp(opCtx, w, rec, due, true)
				d.idle.push(i)
				d.wake()
			}
		})
	}
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
	idle  *idleWorkers
	jobs  []chan time.Time // each worker's, in the order of the loop's workers
	freed chan struct{}

	start time.Time     // arrival 0's due time
	shift time.Duration // paused time since start: it moves the schedule
	next  int64         // the next arrival not yet sent or dropped
	limit int64         // arrivals in all (iterations), else MaxInt64
	// shard stripes the schedule (runners.Shard): local arrival k is the
	// global arrival shard.Global(k).
	shard runners.Shard
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
	d.start = startOf(d.env)
	// Every pause, whenever it began, moves the rest of the schedule.
	reshift := func() { d.shift = gate.PausedTotal() - pausedBefore }
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

// catchUp sends the arrivals due by now, in order, while a worker is
// free; the first that finds none, and every arrival due after it up to
// now, are dropped in one count. It sends at most one arrival per worker,
// so however far behind the schedule is (an absurd rate) it returns
// quickly; the rest wait for the next pass. It reports whether it dropped
// any.
func (d *dispatcher) catchUp(now time.Time) bool {
	last := d.lastDue(now)
	for budget := len(d.jobs); d.next <= last; {
		i, ok := d.idle.pop()
		if !ok {
			d.env.Recorder(0).Drop(last - d.next + 1)
			d.next = last + 1
			return true
		}
		d.jobs[i] <- d.due(d.next)
		d.next++
		if budget--; budget <= 0 {
			return false
		}
	}
	return false
}

// awaitFree waits, after drops, until a worker is idle again (or a short
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

// dropBefore drops the arrivals due before now: they came while every
// worker was busy and the dispatcher waited for one (awaitFree).
func (d *dispatcher) dropBefore(now time.Time) {
	if d.next >= d.limit || !d.due(d.next).Before(now) {
		return
	}
	last := d.lastDue(now)
	if last > d.next && !d.due(last).Before(now) {
		last-- // due at now exactly: it may take the worker just freed
	}
	d.env.Recorder(0).Drop(last - d.next + 1)
	d.next = last + 1
}

// wake tells a waiting dispatcher that a worker is free.
func (d *dispatcher) wake() {
	select {
	case d.freed <- struct{}{}:
	default:
	}
}

// idleWorkers are the open loop's workers free for an arrival, the most
// recently freed on top.
type idleWorkers struct {
	mu  sync.Mutex
	ids []int
}

// newIdleWorkers returns workers 0 to n-1 idle, worker 0 on top.
func newIdleWorkers(n int) *idleWorkers {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = n - 1 - i
	}
	return &idleWorkers{ids: ids}
}

// pop takes the most recently freed worker; false when none is idle.
func (w *idleWorkers) pop() (int, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.ids)
	if n == 0 {
		return 0, false
	}
	i := w.ids[n-1]
	w.ids = w.ids[:n-1]
	return i, true
}

// push puts worker i back, on top.
func (w *idleWorkers) push(i int) {
	w.mu.Lock()
	w.ids = append(w.ids, i)
	w.mu.Unlock()
}
