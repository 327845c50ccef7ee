// Package loop is the shape of a step's load, written once: the closed
// loop (workers back to back), the open loop (arrivals due at start +
// i/rate, or where the integral of its rate stages reaches i, whatever the
// server does) and its Schedule, a pure function of
// the clock that the open loop's dispatcher and the event-loop clients
// (runners/evloop) both follow, with one rule for late and dropped
// arrivals. The engine drives a group's workers with it, and so do the
// runners that drive loads of their own (loads, shutdown), without the
// engine.
package loop

import (
	"math"
	"time"

	"github.com/benchtui/benchtui/runners"
)

// LateAfter is how long after its due time an open-loop arrival may be
// sent before it counts as late: the generator fell behind its schedule
// (its latency, measured from the due time, includes the wait). The
// open loop and runners that drive their own count it (Late).
const LateAfter = time.Millisecond

// DropAfter is how long after its due time an open-loop arrival may
// still be sent. One the generator could not send by then (a rate beyond
// what it can send) is dropped and counted, as one that finds every worker
// busy is: the schedule never falls further behind than this, and no
// arrival waits unseen (DropLine).
const DropAfter = time.Second

// CounterLate counts late arrivals while a step runs; the artifact has
// them as steps[].late.
const CounterLate = "late"

// MaxArrival bounds the step's arrival indexes, so that an absurd rate
// cannot overflow the counts of arrivals: up to it a float64 holds them
// exactly, and a hundred repetitions' drops still add up within an int64.
// (Past it, at 1e12/s after 2.5 hours, every arrival is due: the
// generator sends or drops one per pass.)
const MaxArrival = int64(1) << 53

// Late reports whether an arrival due at due and sent at sent counts as
// late (more than LateAfter after its due time).
func Late(due, sent time.Time) bool { return sent.Sub(due) > LateAfter }

// DropLine is the due time before which an arrival the generator reaches
// at now is dropped unsent: DropAfter before now.
func DropLine(now time.Time) time.Time { return now.Add(-DropAfter) }

// Schedule is one generator's share of an open loop's arrivals: the
// step's arrival g is due at Start + g/Rate (or where its Profile's
// integral passes g) + the time paused since,
// computed from the start and never from the previous arrival, so a slow
// server cannot slow the schedule. Its k-th arrival is the step's
// Stripe.Global(k): a shard's share of a distributed run, or one event
// loop's share of a client's loops, so that the stripes together keep the
// step's rate. A Schedule is pure: its methods read no clock.
type Schedule struct {
	Start time.Time // when the step's arrival 0 is due (the first stage's start)
	Rate  float64   // the step's arrivals per second, without a Profile
	// Profile, when it has stages, is the step's rate over time instead
	// of Rate (ProfileOf): arrival g is due when the rate's integral
	// passes g.
	Profile Profile
	// Stripe says which of the step's arrivals are this schedule's (the
	// zero Shard: all of them).
	Stripe runners.Shard
	// PausedBefore is the pause gate's paused total when the schedule
	// started, and Shift the time paused since (Paused): it moves every
	// arrival not yet due.
	PausedBefore, Shift time.Duration
}

// Paused moves the schedule by the time paused since it started, given
// the gate's paused total: every pause, whenever it began, moves the rest
// of the schedule.
func (s *Schedule) Paused(total time.Duration) { s.Shift = total - s.PausedBefore }

// Due is when the schedule's arrival k is due: never (Never after the
// start) when the rate is 0 from before then on.
func (s Schedule) Due(k int64) time.Time {
	return s.Start.Add(s.Shift + s.offset(s.Stripe.Global(k)))
}

// Never is how far after the start an arrival that is never due is due:
// a profile's last rate is 0 before it (some 146 years).
const Never = time.Duration(1) << 62

// offset is when the step's arrival g is due, after the start and any
// pause: at g/Rate, or where the profile's integral passes g.
func (s Schedule) offset(g int64) time.Duration {
	if !s.Profile.staged() {
		return time.Duration(float64(g) * float64(time.Second) / s.Rate)
	}
	if at := s.Profile.at(float64(g)); at < Never.Seconds() {
		return time.Duration(at * float64(time.Second))
	}
	return Never
}

// LastDue is the index of the schedule's last arrival due by now: below
// next when none from next on is due. Past MaxArrival (or at an infinite
// rate, where the product may be NaN) every arrival is due: it is at
// least next, so that the generator sends or drops one arrival per pass.
func (s Schedule) LastDue(now time.Time, next int64) int64 {
	elapsed := now.Sub(s.Start.Add(s.Shift))
	f := elapsed.Seconds() * s.Rate
	if s.Profile.staged() {
		f = s.Profile.arrivals(elapsed.Seconds())
	}
	if !(f < float64(MaxArrival)) {
		return max(next, s.Stripe.LocalBefore(MaxArrival)-1)
	}
	g := int64(math.Floor(f))
	if s.Profile.staged() {
		g = s.settle(g, elapsed)
	}
	return s.Stripe.LocalBefore(g) - 1
}

// settle moves g, the step's arrivals due by elapsed as the integral
// counts them, to the last whose offset is at most elapsed: Due and
// LastDue agree to the nanosecond, whatever the rounding of the ramp's
// root and of a stage at rate 0. Rounding moves it by one at most.
func (s Schedule) settle(g int64, elapsed time.Duration) int64 {
	for range 2 {
		if g+1 < MaxArrival && s.offset(g+1) <= elapsed {
			g++
		}
	}
	for range 2 {
		if g >= 0 && s.offset(g) > elapsed {
			g--
		}
	}
	return g
}
