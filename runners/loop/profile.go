package loop

import (
	"math"
	"sort"

	"github.com/benchtui/benchtui/runners/plan"
)

// Profile is an open loop's rate over time when it changes (plan
// load.stages): segments that hold a rate or ramp linearly between two,
// then rate 0 for ever: no arrival is due after the stages. The zero Profile is none: the schedule's Rate
// holds. A Profile is built once (ProfileOf) and only read after, so the
// schedules of a step's generators share it.
type Profile struct{ segs []segment }

// segment is one stage of a Profile, in seconds from the schedule's start.
type segment struct {
	start, length float64 // length +Inf: the last, at rate 0 for ever
	from, to      float64 // the rate at its start and at its end
	before        float64 // arrivals due before it: the rate's integral up to start
}

// ProfileOf is the profile of stages: a stage holds its rate for its
// time, or ramps linearly from the previous stage's rate (0 before the
// first) to its own; past the last stage the rate is 0, as a step that
// outlasts its stages by an engine tick sends no more. No stages: the
// zero Profile.
func ProfileOf(stages []plan.Stage) Profile {
	if len(stages) == 0 {
		return Profile{}
	}
	segs := make([]segment, 0, len(stages)+1)
	var at, before, rate float64
	for _, s := range stages {
		from := s.Rate
		if s.Ramp == plan.RampLinear {
			from = rate
		}
		length := s.For.D().Seconds()
		segs = append(segs, segment{start: at, length: length, from: from, to: s.Rate, before: before})
		at, before, rate = at+length, before+(from+s.Rate)/2*length, s.Rate
	}
	return Profile{segs: append(segs, segment{start: at, length: math.Inf(1), before: before})}
}

// staged reports whether p has stages (else the schedule's Rate holds).
func (p Profile) staged() bool { return len(p.segs) > 0 }

// arrivals is the rate's integral from the start to t seconds: how many
// arrivals are due by then, as a real number.
func (p Profile) arrivals(t float64) float64 {
	if t <= 0 {
		return 0
	}
	i := sort.Search(len(p.segs), func(i int) bool { return p.segs[i].start > t }) - 1
	s := p.segs[i]
	tau := t - s.start
	if s.from == s.to {
		return s.before + s.from*tau
	}
	return s.before + s.from*tau + (s.to-s.from)*tau*tau/(2*s.length)
}

// end is the arrivals due by the end of segment i.
func (p Profile) end(i int) float64 {
	if i+1 < len(p.segs) {
		return p.segs[i+1].before
	}
	return p.segs[i].before // the last, at rate 0
}

// at is when, in seconds from the start, arrival g is due: the first
// time the rate's integral passes g (+Inf: never, past the stages' own
// arrivals). A stage at rate 0 has no arrivals; a ramp from 0 has
// its first at its start.
func (p Profile) at(g float64) float64 {
	i := sort.Search(len(p.segs), func(i int) bool { return p.end(i) > g })
	if i == len(p.segs) {
		return math.Inf(1)
	}
	s := p.segs[i]
	x := g - s.before // arrivals into the segment
	if x <= 0 {
		return s.start
	}
	if s.from == s.to {
		return s.start + x/s.from
	}
	// from·τ + c·τ² = x, c = (to-from)/(2·length): the root written so
	// that it loses no digits when c is small and is exact at from = 0.
	c := (s.to - s.from) / (2 * s.length)
	tau := 2 * x / (s.from + math.Sqrt(max(s.from*s.from+4*c*x, 0)))
	return s.start + min(tau, s.length)
}

// ScheduleOf is the schedule of load's open loop, its rate or its
// stages, not yet started: the caller sets Start, Stripe and PausedBefore.
func ScheduleOf(load plan.Load) Schedule {
	return Schedule{Rate: load.Rate, Profile: ProfileOf(load.Stages)}
}
