package loop

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners"
)

var t0 = time.Unix(1_700_000_000, 0)

// TestScheduleDue: arrival k of a schedule is due at start + g/rate +
// the shift, g its global index in the stripe.
func TestScheduleDue(t *testing.T) {
	for _, c := range []struct {
		rate   float64
		stripe runners.Shard
		shift  time.Duration
		k      int64
		want   time.Duration // after t0
	}{
		{rate: 1, k: 0, want: 0},
		{rate: 1, k: 3, want: 3 * time.Second},
		{rate: 1000, k: 1, want: time.Millisecond},
		{rate: 1000, k: 1500, want: 1500 * time.Millisecond},
		{rate: 3, k: 1, want: 333_333_333},
		{rate: 0.5, k: 2, want: 4 * time.Second},
		{rate: 10, stripe: runners.Shard{Index: 0, Count: 1}, k: 5, want: 500 * time.Millisecond},
		{rate: 10, stripe: runners.Shard{Index: 1, Count: 4}, k: 0, want: 100 * time.Millisecond},
		{rate: 10, stripe: runners.Shard{Index: 1, Count: 4}, k: 2, want: 900 * time.Millisecond},
		{rate: 10, stripe: runners.Shard{Index: 3, Count: 4}, k: 1, want: 700 * time.Millisecond},
		{rate: 10, shift: 2 * time.Second, k: 5, want: 2500 * time.Millisecond},
		{rate: 10, stripe: runners.Shard{Index: 1, Count: 2}, shift: time.Second, k: 1, want: 1300 * time.Millisecond},
	} {
		s := Schedule{Start: t0, Rate: c.rate, Stripe: c.stripe, Shift: c.shift}
		if got := s.Due(c.k).Sub(t0); got != c.want {
			t.Errorf("rate %g, stripe %d/%d, shift %v: arrival %d due at +%v, want +%v", c.rate, c.stripe.Index, c.stripe.Count, c.shift, c.k, got, c.want)
		}
	}
}

// TestScheduleLastDue: the last arrival due by a time, in the stripe's
// own indexes; none due is below next; past MaxArrival, every arrival is
// due (at least next).
func TestScheduleLastDue(t *testing.T) {
	for _, c := range []struct {
		rate   float64
		stripe runners.Shard
		shift  time.Duration
		at     time.Duration // after t0
		next   int64
		want   int64
	}{
		{rate: 10, at: 0, want: 0},
		{rate: 10, at: 99 * time.Millisecond, want: 0},
		{rate: 10, at: 100 * time.Millisecond, want: 1},
		{rate: 10, at: -50 * time.Millisecond, want: -1},
		{rate: 10, at: -2 * time.Second, next: 3, want: -1},
		{rate: 1e6, at: time.Second, want: 1e6},
		{rate: 10, stripe: runners.Shard{Index: 1, Count: 4}, at: 50 * time.Millisecond, want: -1},
		{rate: 10, stripe: runners.Shard{Index: 1, Count: 4}, at: 100 * time.Millisecond, want: 0},
		{rate: 10, stripe: runners.Shard{Index: 1, Count: 4}, at: 499 * time.Millisecond, want: 0},
		{rate: 10, stripe: runners.Shard{Index: 1, Count: 4}, at: 500 * time.Millisecond, want: 1},
		{rate: 10, shift: time.Second, at: 1250 * time.Millisecond, want: 2},
		{rate: 10, shift: time.Second, at: 900 * time.Millisecond, want: -1},
		// Every arrival due: at least next, and the stripe's share of
		// MaxArrival.
		{rate: math.Inf(1), at: 0, next: 7, want: MaxArrival},
		{rate: math.Inf(1), at: time.Second, next: MaxArrival + 5, want: MaxArrival + 5},
		{rate: 1e300, stripe: runners.Shard{Index: 1, Count: 2}, at: time.Second, want: MaxArrival/2 - 1},
		{rate: 1e300, stripe: runners.Shard{Index: 0, Count: 2}, at: time.Second, want: MaxArrival / 2},
	} {
		s := Schedule{Start: t0, Rate: c.rate, Stripe: c.stripe, Shift: c.shift}
		if got := s.LastDue(t0.Add(c.at), c.next); got != c.want {
			t.Errorf("rate %g, stripe %d/%d, shift %v: last due at +%v (next %d) = %d, want %d", c.rate, c.stripe.Index, c.stripe.Count, c.shift, c.at, c.next, got, c.want)
		}
	}
}

// TestScheduleDueAndLastDueAgree: an arrival is the last due at its own
// due time, and not a nanosecond before, for rates with and without a
// stripe (the dispatcher sends arrival k once LastDue reaches it, and
// sleeps until Due(k) before).
func TestScheduleDueAndLastDueAgree(t *testing.T) {
	for _, rate := range []float64{1, 7, 1000, 123_456} {
		for _, stripe := range []runners.Shard{{}, {Index: 2, Count: 3}} {
			s := Schedule{Start: t0, Rate: rate, Stripe: stripe, Shift: 1500 * time.Millisecond}
			for k := range int64(500) {
				due := s.Due(k)
				// Due truncates to the nanosecond: the arrival is due by
				// the next one.
				if got := s.LastDue(due.Add(time.Nanosecond), 0); got != k {
					t.Fatalf("rate %g, stripe %d/%d: at arrival %d's due time, last due %d", rate, stripe.Index, stripe.Count, k, got)
				}
				if got := s.LastDue(due.Add(-time.Nanosecond), 0); got != k-1 {
					t.Fatalf("rate %g, stripe %d/%d: just before arrival %d's due time, last due %d", rate, stripe.Index, stripe.Count, k, got)
				}
			}
		}
	}
}

// TestStripesAreTheSingleSchedule: the union of n stripes' due times is
// the single schedule, each arrival once, and at any moment the stripes
// together have as many arrivals due as the single schedule.
func TestStripesAreTheSingleSchedule(t *testing.T) {
	for _, rate := range []float64{1, 333, 10_000} {
		for n := 1; n <= 4; n++ {
			first := time.Duration(float64(n) / rate * float64(time.Second))
			checkStripes(t, fmt.Sprintf("rate %g", rate), Schedule{Start: t0, Rate: rate}, n,
				[]time.Duration{0, first, first + 1500*time.Millisecond})
		}
	}
}

// checkStripes checks that n stripes of single have its first 2000
// arrivals' due times, each once, and together as many arrivals due at
// each of ats (after t0) as single.
func checkStripes(t *testing.T, name string, single Schedule, n int, ats []time.Duration) {
	t.Helper()
	const arrivals = 2000
	var want, got []time.Time
	for j := range int64(arrivals) {
		want = append(want, single.Due(j))
	}
	var parts []Schedule
	for i := range n {
		s := single
		s.Stripe = runners.Shard{Index: i, Count: n}
		parts = append(parts, s)
		for k := int64(0); s.Stripe.Global(k) < arrivals; k++ {
			got = append(got, s.Due(k))
		}
	}
	slices.SortFunc(got, func(a, b time.Time) int { return a.Compare(b) })
	if !slices.EqualFunc(want, got, time.Time.Equal) {
		t.Fatalf("%s, %d stripes: the stripes' due times differ from the single schedule", name, n)
	}
	for _, at := range ats {
		var sum int64
		for _, s := range parts {
			sum += s.LastDue(t0.Add(at), 0) + 1
		}
		if wantDue := single.LastDue(t0.Add(at), 0) + 1; sum != wantDue {
			t.Fatalf("%s, %d stripes, at +%s: %d arrivals due on the stripes, %d on the single schedule", name, n, at, sum, wantDue)
		}
	}
}

// TestPausedShiftsTheSchedule: only the time paused since the schedule
// started moves it, by exactly that time.
func TestPausedShiftsTheSchedule(t *testing.T) {
	for _, c := range []struct {
		before, total, want time.Duration
	}{
		{0, 0, 0},
		{3 * time.Second, 3 * time.Second, 0},
		{3 * time.Second, 5 * time.Second, 2 * time.Second},
		{0, 250 * time.Millisecond, 250 * time.Millisecond},
	} {
		s := Schedule{Start: t0, Rate: 100, PausedBefore: c.before}
		s.Paused(c.total)
		if s.Shift != c.want || s.Due(10) != t0.Add(c.want+100*time.Millisecond) {
			t.Errorf("paused %v before, %v in all: shift %v, arrival 10 due +%v; want shift %v", c.before, c.total, s.Shift, s.Due(10).Sub(t0), c.want)
		}
		if got := s.LastDue(t0.Add(c.want+100*time.Millisecond), 0); got != 10 {
			t.Errorf("paused %v before, %v in all: last due at arrival 10's time = %d", c.before, c.total, got)
		}
	}
}

// TestLateAndDropRule: an arrival is late past LateAfter, and dropped
// when reached past DropAfter (due before the drop line).
func TestLateAndDropRule(t *testing.T) {
	for _, c := range []struct {
		sent          time.Duration // after the due time
		late, dropped bool
	}{
		{-time.Millisecond, false, false},
		{0, false, false},
		{LateAfter, false, false},
		{LateAfter + 1, true, false},
		{500 * time.Millisecond, true, false},
		{DropAfter, true, false},
		{DropAfter + 1, true, true},
	} {
		due := t0
		now := due.Add(c.sent)
		if got := Late(due, now); got != c.late {
			t.Errorf("sent %v after due: late %v, want %v", c.sent, got, c.late)
		}
		if got := due.Before(DropLine(now)); got != c.dropped {
			t.Errorf("reached %v after due: dropped %v, want %v", c.sent, got, c.dropped)
		}
	}
	if LateAfter != time.Millisecond || DropAfter != time.Second {
		t.Fatalf("late after %v, dropped after %v: docs/artifact.md (steps[].late) says 1 ms and 1 s", LateAfter, DropAfter)
	}
}
