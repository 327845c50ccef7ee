package loads

import (
	"fmt"
	"strings"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// shape is one load of a group in one step: its plan entry and index, its
// kind, and its load shape and sweep values in that step.
type shape struct {
	i      int
	spec   *plan.NamedLoad
	kind   runners.Kind
	load   plan.Load
	params map[string]float64
}

// units is how many goroutines and connections the load holds in the
// step, and the plan key that sets it.
func (s shape) units() (int, string) {
	if s.kind.Units != nil {
		return s.kind.Units(s.spec.Group, s.load, s.params)
	}
	return runners.WorkerUnits(s.load)
}

// sumProblems checks every step of g: its loads together must keep to the
// limits of one load (sumsProblem). It reports the first step that does
// not; a sweep past plan.MaxSteps is the plan's to report.
func sumProblems(reg *runners.Registry, g *plan.Group) []error {
	if g.StepCount() > plan.MaxSteps {
		return nil
	}
	steps := plan.Steps(g, 0)
	for _, st := range steps {
		var shapes []shape
		for i, l := range g.Loads {
			if l.Group == nil {
				continue // not validated by the plan (a decoding problem there)
			}
			k, _ := reg.Kind(l.Runner)
			load, params := l.InStep(st.Params)
			shapes = append(shapes, shape{i: i, spec: l, kind: k, load: load, params: params})
		}
		label := ""
		if len(steps) > 1 {
			label = "step " + st.Label + ": "
		}
		if errs := sumsProblems(g, shapes, label); len(errs) > 0 {
			return errs
		}
	}
	return nil
}

// sumsProblems are the limits that a step's loads pass together, each a
// plan error at the load whose share passes it: their rates added up
// against plan.MaxRate, and their workers (concurrency, max_in_flight,
// subscribers) against plan.MaxWorkers, the limits of one load. step
// prefixes the messages ("step LABEL: " in a swept group).
func sumsProblems(g *plan.Group, shapes []shape, step string) []error {
	var errs []error
	var rates, units []float64
	for _, s := range shapes {
		n, _ := s.units()
		rates = append(rates, s.load.PeakRate())
		units = append(units, float64(min(n, plan.MaxWorkers+1))) // each already checked
	}
	if i, total := passes(rates, plan.MaxRate); i >= 0 {
		s := shapes[i]
		errs = append(errs, plan.Errorf(s.spec.Pos, keyOf(g, s, "load.rate"),
			"%sthe loads' rates add up to %.0f arrivals/s, above the limit of %d for a group's loads together, as for one load (one generator cannot send that many)",
			step, total, plan.MaxRate))
	}
	if i, total := passes(units, plan.MaxWorkers); i >= 0 {
		s := shapes[i]
		_, key := s.units()
		errs = append(errs, plan.Errorf(posOf(s, key), keyOf(g, s, key),
			"%sthe loads' workers (concurrency, max_in_flight, subscribers) add up to %.0f, above the limit of %d for a group's loads together, as for one load (each is a goroutine and a connection)",
			step, total, plan.MaxWorkers))
	}
	return errs
}

// passes returns the index at which the running sum of vals passes limit
// (-1: it never does) and the sum of them all.
func passes(vals []float64, limit float64) (int, float64) {
	at, sum := -1, 0.0
	for i, v := range vals {
		if sum += v; sum > limit && at < 0 {
			at = i
		}
	}
	return at, sum
}

// keyOf is the plan key of field key of load s.
func keyOf(g *plan.Group, s shape, key string) string {
	return fmt.Sprintf("group %s: loads[%d].%s", g.ID, s.i, key)
}

// posOf is where field key of load s is written: its runner section's
// place for a key of that section, else the load's.
func posOf(s shape, key string) plan.Pos {
	section, _, _ := strings.Cut(key, ".")
	if pos, ok := s.spec.Group.SectionPos[section]; ok {
		return pos
	}
	return s.spec.Pos
}
