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

// lagWindow is the span each reading of the loop lag covers: the
// gauges give the last whole window's, so that any number of scrapers
// read the same figures.
const lagWindow = time.Second

// loopLag measures how late the process runs a goroutine that asked to
// wake up: a timer due every LagResolution is late by the time the
// scheduler took to run it (every P busy, a stop-the-world pause). It is
// the Go stand-in for a JavaScript server's event-loop lag, exported as
// prom-client exports that: demo_loop_lag_p99_seconds and
// demo_loop_lag_max_seconds, here over the last whole second.
type loopLag struct {
	mu        sync.Mutex
	hist      *hdrhistogram.Histogram // lags in µs of the window being filled
	p99, most float64                 // the last whole window's, in seconds
}

func newLoopLag() *loopLag {
	return &loopLag{hist: hdrhistogram.New(1, int64(time.Minute/time.Microsecond), 3)}
}

// run wakes every LagResolution until ctx ends, recording how late each
// wake-up came, and closes a window every lagWindow.
func (l *loopLag) run(ctx context.Context) {
	t := time.NewTimer(LagResolution)
	defer t.Stop()
	due := time.Now().Add(LagResolution)
	windowEnd := time.Now().Add(lagWindow)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C: // the value sent is when the timer fired, not when this ran
			now := time.Now()
			l.record(max(now.Sub(due), 0))
			if now.After(windowEnd) {
				l.roll()
				windowEnd = now.Add(lagWindow)
			}
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

// roll closes the window: its p99 and max become the readings.
func (l *loopLag) roll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.p99 = float64(l.hist.ValueAtQuantile(99)) / 1e6
	l.most = float64(l.hist.Max()) / 1e6
	l.hist.Reset()
}

// read returns the p99 and the max of the last whole window's lags, in
// seconds (0, 0 before the first).
func (l *loopLag) read() (p99, most float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.p99, l.most
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

// stallSpinners is how many goroutines per P the fault stall keeps busy:
// a timer due meanwhile waits its turn behind them, about 10 ms each
// (Go's preemption slice), so a stall shows as tens of ms of lag.
const stallSpinners = 8

// stall is the fault stall: every period it keeps every P busy for d, as
// CPU-bound work on a server's one event loop does, until ctx ends.
func stall(ctx context.Context, d, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			var wg sync.WaitGroup
			for range stallSpinners * runtime.GOMAXPROCS(0) {
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
