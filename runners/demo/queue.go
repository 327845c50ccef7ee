package demo

import (
	"sync"
	"time"
)

// ingestDelay is how long after its acceptance /ingest delivers a batch:
// a drain that keeps up.
const ingestDelay = 50 * time.Millisecond

// maxQueued bounds the batches the queue keeps apart; past it a new batch
// joins the newest (the oldest age and the counts stay right).
const maxQueued = 1 << 16

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
}

type queued struct {
	n  int64
	at time.Time
}

// add queues n events accepted at now.
func (q *ingestQueue) add(n int64, now time.Time) {
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
	q.batches = append(q.batches, queued{n: n, at: now})
}

// deliver moves the batches due by now out of the queue.
func (q *ingestQueue) deliver(now time.Time) {
	if q.stuck {
		return
	}
	i := 0
	for ; i < len(q.batches) && now.Sub(q.batches[i].at) >= ingestDelay; i++ {
		q.pending -= q.batches[i].n
		q.delivered += q.batches[i].n
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
