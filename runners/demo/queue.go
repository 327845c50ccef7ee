package demo

import (
	"sync"
	"time"
)

// ingestDelay is how long after its acceptance /ingest delivers a batch:
// a drain that keeps up.
const ingestDelay = 50 * time.Millisecond

// maxQueued bounds the batches the queue keeps apart; past it (only a
// stuck queue gets there) a new batch joins the newest: the oldest age and
// the totals stay right, its run's count goes to the newest's run.
const maxQueued = 1 << 16

// maxRuns bounds the runs whose delivered events are counted apart; the
// events of a run past it are counted in the total only.
const maxRuns = 1024

// ingestQueue is the /ingest stand-in's delivery queue (seed 003's API
// queues originals before ClickHouse): each accepted batch is pending
// until ingestDelay has passed, then delivered, unless the queue is stuck
// (the fault stuck-queue). Delivery happens as the queue is read, so it
// needs no goroutine of its own.
type ingestQueue struct {
	stuck     bool
	mu        sync.Mutex
	batches   []queued // oldest first
	pending   int64
	delivered int64
	byRun     map[string]int64 // delivered events by their "run"
}

type queued struct {
	n   int64
	at  time.Time
	run string
}

// add queues n events of run accepted at now.
func (q *ingestQueue) add(run string, n int64, now time.Time) {
	if n <= 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.deliver(now)
	q.pending += n
	if len(q.batches) >= maxQueued {
		q.batches[len(q.batches)-1].n += n
		return
	}
	q.batches = append(q.batches, queued{n: n, at: now, run: run})
}

// deliver moves the batches due by now out of the queue.
func (q *ingestQueue) deliver(now time.Time) {
	if q.stuck {
		return
	}
	i := 0
	for ; i < len(q.batches) && now.Sub(q.batches[i].at) >= ingestDelay; i++ {
		b := q.batches[i]
		q.pending -= b.n
		q.delivered += b.n
		if q.byRun == nil {
			q.byRun = map[string]int64{}
		}
		if _, ok := q.byRun[b.run]; ok || len(q.byRun) < maxRuns {
			q.byRun[b.run] += b.n
		}
	}
	q.batches = q.batches[i:]
}

// Stats are the queue's figures at now: pending and delivered events and
// the age of the oldest pending one.
func (q *ingestQueue) Stats(now time.Time) (pending, delivered int64, oldest time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.deliver(now)
	if len(q.batches) > 0 {
		oldest = now.Sub(q.batches[0].at)
	}
	return q.pending, q.delivered, oldest
}

// Visible is the events of run delivered by now.
func (q *ingestQueue) Visible(run string, now time.Time) int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.deliver(now)
	return q.byRun[run]
}
