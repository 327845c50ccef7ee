package plan

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// Upper bounds of a load, each far above what one generator machine
// drives: a larger value is a typing mistake that would otherwise allocate
// workers or spin a dispatcher until the machine gives out.
const (
	MaxWorkers = 100_000
	MaxRate    = 1_000_000
	// MaxSteps bounds the steps a sweep expands to.
	MaxSteps = 1_000
)

// LoadKeys are the sweep keys that set the load itself; any other sweep
// key is a parameter that the group's runner must read (runners.Kind.Params).
var LoadKeys = []string{"concurrency", "max_in_flight", "rate"}

// loadProblem is a problem of a load: its key, and where it is written
// when that is more precise than the group (a stage).
type loadProblem struct {
	key, msg string
	pos      Pos
}

// problem is the first thing wrong with a load, or nil.
func (l Load) problem() *loadProblem {
	bad := func(key, format string, args ...any) *loadProblem {
		return &loadProblem{key: key, msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case l.Rate < 0 || l.Concurrency < 0 || l.MaxInFlight < 0:
		return bad("load", "values must not be negative")
	case math.IsNaN(l.Rate) || l.Rate > MaxRate:
		return bad("load.rate", "%v arrivals/s is above the limit of %d (one generator cannot send that many)", l.Rate, MaxRate)
	case l.Concurrency > MaxWorkers:
		return bad("load.concurrency", "%d workers is above the limit of %d", l.Concurrency, MaxWorkers)
	case l.MaxInFlight > MaxWorkers:
		return bad("load.max_in_flight", "%d is above the limit of %d", l.MaxInFlight, MaxWorkers)
	case l.OpenLoop() && l.Concurrency > 0:
		return bad("load", "give concurrency (closed loop) or rate (open loop), not both")
	case !l.OpenLoop() && l.MaxInFlight > 0:
		return bad("load.max_in_flight", "bounds an open loop's pending arrivals: give a rate, or leave it out")
	case l.OpenLoop() && l.MaxInFlight == 0:
		return bad("load.max_in_flight", "an open loop needs max_in_flight")
	}
	return l.stagesProblem()
}

// sweepProblems checks each sweep value, and each step's load once the
// sweep is applied (sweeping rate on a closed loop gives steps with both).
func (g *Group) sweepProblems() []error {
	var errs []error
	at := func(key, format string, args ...any) {
		errs = append(errs, Errorf(g.Pos, fmt.Sprintf("group %s: %s", g.ID, key), format, args...))
	}
	for _, k := range slices.Sorted(maps.Keys(g.Sweep)) {
		vals := g.Sweep[k]
		if len(vals) == 0 {
			at("sweep."+k, "needs at least one value")
		}
		for i, v := range vals {
			if msg := sweepValueProblem(k, v); msg != "" {
				at(fmt.Sprintf("sweep.%s[%d]", k, i), "%s", msg)
			}
		}
	}
	if g.StepCount() > MaxSteps {
		at("sweep", "expands to more than %d steps (vars included)", MaxSteps)
	}
	if len(errs) > 0 || g.Load.problem() != nil {
		return errs // the load's own problem is reported once, not per step
	}
	for _, st := range Steps(g, 0) {
		if p := st.Load.problem(); p != nil {
			at("sweep", "step %s: %s: %s", st.Label, p.key, p.msg)
			break
		}
	}
	return errs
}

// StepCount is how many steps the group's sweep and vars make, capped
// just past MaxSteps: Steps is safe to call when it is at most MaxSteps.
func (g *Group) StepCount() int {
	steps := g.stepsOfVars()
	for _, vals := range g.Sweep {
		steps = min(steps*max(len(vals), 1), MaxSteps+1)
	}
	return steps
}

// sweepValueProblem says what is wrong with one value of sweep key k.
func sweepValueProblem(k string, v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Sprintf("%v is not a number", v)
	case k == "rate" && v <= 0:
		return fmt.Sprintf("want a positive rate, got %v", v)
	case (k == "concurrency" || k == "max_in_flight") && (v < 1 || v != math.Trunc(v)):
		return fmt.Sprintf("want a whole number of at least 1, got %v", v)
	case (k == "concurrency" || k == "max_in_flight") && v > MaxWorkers:
		return fmt.Sprintf("%v is above the limit of %d", v, MaxWorkers)
	case k == "rate" && v > MaxRate:
		return fmt.Sprintf("%v arrivals/s is above the limit of %d", v, MaxRate)
	}
	return ""
}
