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
