package demo

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// LagResolution is how often the loop-lag monitor asks to be woken:
// Node's monitorEventLoopDelay default, which prom-client's
// nodejs_eventloop_lag_* gauges read.
const LagResolution = 10 * time.Millisecond

// loopLag measures how late the process runs a goroutine that asked to
// wake up: a timer due every LagResolution is late by the time the
// scheduler took to run it (every P busy, a stop-the-world pause). It is
// the Go stand-in for a JavaScript server's event-loop lag, exported as
// prom-client exports that (demo_loop_lag_p99_seconds,
// demo_loop_lag_max_seconds, each over the lags since the last scrape).
type loopLag struct {
	mu   sync.Mutex
	hist *hdrhistogram.Histogram // lags in µs since the last read
}

func newLoopLag() *loopLag {
	return &loopLag{hist: hdrhistogram.New(1, int64(time.Minute/time.Microsecond), 3)}
}

// run wakes every LagResolution until ctx ends, recording how late each
// wake-up came.
func (l *loopLag) run(ctx context.Context) {
	t := time.NewTimer(LagResolution)
	defer t.Stop()
	due := time.Now().Add(LagResolution)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C: // the value sent is when the timer fired, not when this ran
			now := time.Now()
			l.record(max(now.Sub(due), 0))
			due = now.Add(LagResolution)
			t.Reset(LagResolution)
		}
	}
}

func (l *loopLag) record(lag time.Duration) {
	l.mu.Lock()
	l.hist.RecordValue(max(int64(lag/time.Microsecond), 1))
	l.mu.Unlock()
}

// read returns the p99 and the max of the lags since the last read, in
// seconds, and starts a new interval (0, 0 when none was recorded).
func (l *loopLag) read() (p99, most float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hist.TotalCount() == 0 {
		return 0, 0
	}
	p99 = float64(l.hist.ValueAtQuantile(99)) / 1e6
	most = float64(l.hist.Max()) / 1e6
	l.hist.Reset()
	return p99, most
}

// Background runs what the demo server does besides answering, until ctx
// ends: the loop-lag monitor and, with the fault stall, the stalls.
// demo-target runs it; a Handler without it reports no lag.
func (h *Handler) Background(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { h.lag.run(ctx) })
	if d := h.faults.Stall; d > 0 {
		wg.Go(func() { stall(ctx, d, time.Second) })
	}
	wg.Wait()
}

// stall is the fault stall: every period it keeps every P busy for d, as
// CPU-bound work on a server's one event loop does, until ctx ends. A
// timer due meanwhile runs once Go's scheduler preempts the spinners.
func stall(ctx context.Context, d, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			var wg sync.WaitGroup
			for range runtime.GOMAXPROCS(0) {
				wg.Go(func() { spin(d) })
			}
			wg.Wait()
		}
	}
}

// spin burns CPU for d.
func spin(d time.Duration) {
	end := time.Now().Add(d)
	for n := 0; time.Now().Before(end); n++ {
		slowSink.Add(uint64(n & 1))
	}
}
