package loop

import (
	"fmt"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// hold and ramp are plan stages: a rate held, or ramped to, for d.
func hold(rate float64, d time.Duration) plan.Stage {
	return plan.Stage{Rate: rate, For: plan.Duration{Duration: d}}
}

func ramp(rate float64, d time.Duration) plan.Stage {
	s := hold(rate, d)
	s.Ramp = plan.RampLinear
	return s
}

func staged(stages ...plan.Stage) Schedule {
	return Schedule{Start: t0, Profile: ProfileOf(stages)}
}

// dueBy is how many of s's arrivals are due by at after t0.
func dueBy(s Schedule, at time.Duration) int64 { return s.LastDue(t0.Add(at), 0) + 1 }

const ns = time.Nanosecond

// TestStagesArrivalsPerStage: the arrivals due by the end of each stage
// are the integral of its rate: a held stage rate × time, a linear ramp
// the mean of its ends × time; a stage at rate 0 has none, and none is
// due after the last stage.
func TestStagesArrivalsPerStage(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		name   string
		stages []plan.Stage
		at     []time.Duration
		want   []int64
	}{
		{"two held stages", []plan.Stage{hold(50, s), hold(150, s)},
			[]time.Duration{500*time.Millisecond - ns, s - ns, 1500*time.Millisecond - ns, 2*s - ns, 2 * s, time.Hour}, []int64{25, 50, 125, 200, 200, 200}},
		{"a ramp from 0", []plan.Stage{ramp(200, 2*s)},
			[]time.Duration{0, s - ns, 2*s - ns, 3*s - ns}, []int64{1, 50, 200, 200}},
		{"the report's ramp then steady", []plan.Stage{hold(10, 10*s), ramp(200, 60*s)},
			[]time.Duration{10*s - ns, 40*s - ns, 70*s - ns, 71*s - ns}, []int64{100, 100 + 10*30 + 190*30*30/120, 6400, 6400}},
		{"a ramp down to 0", []plan.Stage{hold(100, s), ramp(0, s)},
			[]time.Duration{s - ns, 2*s - ns, time.Hour}, []int64{100, 150, 150}},
		{"rate 0 first", []plan.Stage{hold(0, s), hold(10, s)},
			[]time.Duration{s - ns, s, 2*s - ns}, []int64{0, 1, 10}},
		{"rate 0 between", []plan.Stage{hold(10, s), hold(0, s), hold(10, s)},
			[]time.Duration{s - ns, 1500 * time.Millisecond, 2*s - ns, 2 * s, 3*s - ns}, []int64{10, 10, 10, 11, 20}},
		{"rate 0 last: never again", []plan.Stage{hold(10, s), hold(0, s)},
			[]time.Duration{s - ns, 24 * time.Hour}, []int64{10, 10}},
		{"tiny rate", []plan.Stage{hold(1e-300, s)},
			[]time.Duration{0, 24 * time.Hour}, []int64{1, 1}},
		{"huge rate: every arrival due", []plan.Stage{hold(1e300, s)},
			[]time.Duration{s}, []int64{MaxArrival + 1}},
	} {
		sched := staged(c.stages...)
		for i, at := range c.at {
			if got := dueBy(sched, at); got != c.want[i] {
				t.Errorf("%s: %d arrivals due by +%v, want %d", c.name, got, at, c.want[i])
			}
		}
	}
}

// TestStagesDueTimes: the first arrival of a stage after one at rate 0
// is due at its start, an arrival past the stages' integral is never
// due, and a ramp's arrivals solve the quadratic.
func TestStagesDueTimes(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		name   string
		stages []plan.Stage
		k      int64
		want   time.Duration
	}{
		{"held", []plan.Stage{hold(10, s)}, 3, 300 * time.Millisecond},
		{"second stage", []plan.Stage{hold(10, s), hold(100, s)}, 15, 1050 * time.Millisecond},
		{"after rate 0", []plan.Stage{hold(0, s), hold(10, s)}, 0, s},
		{"after rate 0 between", []plan.Stage{hold(10, s), hold(0, s), hold(10, s)}, 10, 2 * s},
		{"past the last stage at rate 0", []plan.Stage{hold(10, s), hold(0, s)}, 10, Never},
		{"ramp from 0: 50·t² = 50", []plan.Stage{ramp(200, 2*s)}, 50, s},
		{"ramp from 0: 50·t² = 2", []plan.Stage{ramp(200, 2*s)}, 2, 200 * time.Millisecond},
		{"ramp from 100: 100·t + 25·t² = 125", []plan.Stage{hold(100, s), ramp(200, 2*s)}, 225, 2 * s},
		{"ramp down: 100·t - 50·t² = 50", []plan.Stage{hold(100, s), ramp(0, s)}, 150, Never},
		{"the ramp's last", []plan.Stage{ramp(10, s)}, 4, 894_427_190},
		{"past the stages", []plan.Stage{ramp(10, s)}, 5, Never},
		{"tiny rate", []plan.Stage{hold(1e-300, s)}, 1, Never},
	} {
		if got := staged(c.stages...).Due(c.k).Sub(t0); got != c.want {
			t.Errorf("%s: arrival %d due at +%v, want +%v", c.name, c.k, got, c.want)
		}
	}
}

// profiles are stage lists the property tests walk.
var profiles = [][]plan.Stage{
	{hold(10, time.Second), ramp(200, 3*time.Second)},
	{ramp(1000, time.Second), ramp(0, time.Second), hold(0, time.Second), ramp(333, time.Second)},
	{hold(7, 500*time.Millisecond), ramp(123_456, 100*time.Millisecond), ramp(5, 100*time.Millisecond)},
}

// TestStagesDueIsMonotoneAndAgreesWithLastDue: the due times never go
// back, and an arrival is the last due at its own due time and not a
// nanosecond before, with and without a stripe and a shift.
func TestStagesDueIsMonotoneAndAgreesWithLastDue(t *testing.T) {
	for i, stages := range profiles {
		for _, stripe := range []runners.Shard{{}, {Index: 2, Count: 3}} {
			s := staged(stages...)
			s.Stripe, s.Shift = stripe, 1500*time.Millisecond
			prev := t0
			for k := range int64(3000) {
				due := s.Due(k)
				if due.Sub(t0) >= Never {
					break
				}
				name := fmt.Sprintf("profile %d, stripe %d/%d, arrival %d due +%v", i, stripe.Index, stripe.Count, k, due.Sub(t0))
				if due.Before(prev) {
					t.Fatalf("%s: before the previous one, +%v", name, prev.Sub(t0))
				}
				prev = due
				if got := s.LastDue(due, 0); got != k {
					t.Fatalf("%s: at its due time, last due %d", name, got)
				}
				if got := s.LastDue(due.Add(-ns), 0); got != k-1 {
					t.Fatalf("%s: just before its due time, last due %d", name, got)
				}
			}
		}
	}
}

// TestStagesStripesAreTheSingleSchedule: n stripes (shards, event
// loops) of a staged schedule have the single schedule's due times, each
// arrival once, and together as many arrivals due at any moment.
func TestStagesStripesAreTheSingleSchedule(t *testing.T) {
	var ats []time.Duration
	for at := time.Duration(0); at <= 5*time.Second; at += 137 * time.Millisecond {
		ats = append(ats, at)
	}
	for i, stages := range profiles {
		for n := 1; n <= 4; n++ {
			checkStripes(t, fmt.Sprintf("profile %d", i), staged(stages...), n, ats)
		}
	}
}

// TestStagesPauseShifts: a pause moves a staged schedule by exactly the
// time paused, stages included.
func TestStagesPauseShifts(t *testing.T) {
	s := staged(hold(10, time.Second), ramp(200, time.Second))
	s.PausedBefore = time.Second
	before := s.Due(20)
	s.Paused(3 * time.Second)
	if got := s.Due(20).Sub(before); got != 2*time.Second {
		t.Fatalf("paused 2 s: arrival 20 moved %v", got)
	}
	if got := s.LastDue(s.Due(20), 0); got != 20 {
		t.Fatalf("paused: last due at arrival 20's time = %d", got)
	}
	if got := dueBy(s, 2*time.Second+time.Second-ns); got != 10 {
		t.Fatalf("paused 2 s: %d arrivals due by the end of the shifted first stage, want 10", got)
	}
}
