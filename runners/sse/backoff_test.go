package sse

import (
	"testing"
	"time"
)

// TestReconnectBackoffFullJitter: each reconnect waits a uniform draw in
// [0, 500 ms·2ⁿ] capped at 30 s (full jitter), the first one included:
// subscribers dropped together must not all come back in one instant.
func TestReconnectBackoffFullJitter(t *testing.T) {
	r := newRunner(t, Spec{URL: "http://127.0.0.1:1/events", Reconnect: true})
	for _, c := range []struct {
		attempt int
		ceil    time.Duration
	}{{0, BackoffMin}, {1, 2 * BackoffMin}, {3, 8 * BackoffMin}, {10, BackoffMax}, {60, BackoffMax}} {
		const draws = 200
		seen := map[time.Duration]bool{}
		lo, hi := c.ceil, time.Duration(0)
		for range draws {
			w := r.backoff(c.attempt)
			if w < 0 || w > c.ceil {
				t.Fatalf("attempt %d: wait %v outside [0, %v]", c.attempt, w, c.ceil)
			}
			seen[w] = true
			lo, hi = min(lo, w), max(hi, w)
		}
		// 200 uniform draws span all but a sliver of the range; one
		// value repeated (a clamp) would leave few distinct ones.
		if len(seen) < draws*9/10 || lo > c.ceil/4 || hi < c.ceil*3/4 {
			t.Errorf("attempt %d: %d distinct waits in [%v, %v]; want draws spread over [0, %v]", c.attempt, len(seen), lo, hi, c.ceil)
		}
	}
}

// TestBackoffCeiling: however many attempts (past where 500 ms·2ⁿ would
// overflow), a wait stays within [0, 30 s] and the draws near the cap.
func TestBackoffCeiling(t *testing.T) {
	r := newRunner(t, Spec{URL: "http://127.0.0.1:1/"})
	var top time.Duration
	for n := range 64 {
		for range 200 {
			b := r.backoff(n)
			if b < 0 || b > BackoffMax {
				t.Fatalf("attempt %d: backoff %v outside [0, %v]", n, b, BackoffMax)
			}
			top = max(top, b)
		}
	}
	if top < 20*time.Second {
		t.Errorf("largest backoff %v: jitter never neared the 30s ceiling", top)
	}
}
