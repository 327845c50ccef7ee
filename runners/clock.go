package runners

import (
	"context"
	"time"
)

// SleepUntil sleeps until t and reports whether ctx is still live: it
// returns false as soon as ctx ends, and at once when t has passed (then
// false only if ctx has already ended, so a time already due never wins
// over a cancellation by chance).
func SleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// LateAfter is how long after its due time an open-loop arrival may be
// sent before it counts as late: the generator fell behind its schedule
// (its latency, measured from the due time, includes the wait). The
// engine's open loop and runners that drive their own count it.
const LateAfter = time.Millisecond

// DropAfter is how long after its due time an open-loop arrival may
// still be sent. One the generator could not send by then (a rate beyond
// what it can send) is dropped and counted, as one that finds every worker
// busy is: the schedule never falls further behind than this, and no
// arrival waits unseen.
const DropAfter = time.Second

// CounterLate counts late arrivals while a step runs; the artifact has
// them as steps[].late.
const CounterLate = "late"
