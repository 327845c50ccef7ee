package demo

import (
	"fmt"
	"net/http"
	"sync"
	"time"
)

// deliveryDelay is how long an accepted event waits in the stand-in's
// delivery queue before it is visible in its store.
const deliveryDelay = 500 * time.Millisecond

// maxQueuedBatches bounds the batches the queue keeps apart; past it a
// new batch joins the newest (it becomes visible with it, a little late).
const maxQueuedBatches = 4096

// delivery stands in for the store behind POST /ingest (seed 003: events
// queued in the API, then visible in ClickHouse): each accepted batch
// becomes visible deliveryDelay after it was accepted. GET /ingest/stats
// reads {"accepted", "visible", "pending"}, so a plan can check that the
// queue drains and that what was accepted is visible.
type delivery struct {
	mu      sync.Mutex
	visible int64
	pending int64
	queued  []queuedBatch // oldest first
}

type queuedBatch struct {
	at time.Time
	n  int64
}

// add queues n events accepted at now.
func (d *delivery) add(now time.Time, n int64) {
	if n <= 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.settle(now)
	d.pending += n
	if len(d.queued) >= maxQueuedBatches {
		d.queued[len(d.queued)-1].n += n
		return
	}
	d.queued = append(d.queued, queuedBatch{at: now, n: n})
}

// settle makes visible the batches queued deliveryDelay before now.
func (d *delivery) settle(now time.Time) {
	done := 0
	for done < len(d.queued) && now.Sub(d.queued[done].at) >= deliveryDelay {
		d.visible += d.queued[done].n
		d.pending -= d.queued[done].n
		done++
	}
	d.queued = append(d.queued[:0], d.queued[done:]...)
}

// stats serves GET /ingest/stats.
func (d *delivery) stats(w http.ResponseWriter, _ *http.Request) {
	d.mu.Lock()
	d.settle(time.Now())
	visible, pending := d.visible, d.pending
	d.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, "{\"accepted\":%d,\"visible\":%d,\"pending\":%d}\n", visible+pending, visible, pending)
}
