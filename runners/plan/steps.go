package plan

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Step is one step of a group: its sweep values applied to the load.
type Step struct {
	Label  string
	Params map[string]float64
	// Vars are this step's values of the group's vars (vars:); ShownVars
	// the same as they may be shown and stored, a secret ${VAR} in them
	// redacted.
	Vars      map[string]string
	ShownVars map[string]string
	Load      Load
	Warmup    time.Duration
	// Duration is the measured phase's length; for a counted step, its cap.
	Duration time.Duration
	// Iterations and PerWorker, when positive, end the step after that
	// many operations in all or per worker (the group's counts).
	Iterations, PerWorker int64
}

// Steps turns a group's sweep into steps: the cartesian product of
// the sweep's values, keys in name order. Sweep keys concurrency, rate and
// max_in_flight set the load; any other key is a parameter the runner reads
// from StepEnv.Params.
func Steps(g *Group, override time.Duration) []Step {
	dur := g.Duration.D()
	if g.Counted() {
		dur = g.MaxDuration.D()
		if dur <= 0 {
			dur = DefaultMaxDuration
		}
	}
	if override > 0 && dur > 0 {
		// A step without a duration (spawn cycles, shutdown) ends when its
		// work is done; cutting it short would measure nothing.
		dur = override
	}
	if length := g.stagesCap(); length > 0 && dur > length {
		dur = length // nothing is sent after the stages (run --duration cuts, never extends)
	}
	base := Step{Params: map[string]float64{}, Load: g.Load, Warmup: g.Warmup.D(), Duration: dur,
		Iterations: g.Iterations, PerWorker: g.PerWorkerIterations}
	if override > 0 && base.Warmup > override/4 {
		base.Warmup = override / 4
	}
	steps := []Step{base}
	keys := slices.Sorted(maps.Keys(g.Sweep))
	for _, k := range keys {
		var next []Step
		for _, st := range steps {
			for _, v := range g.Sweep[k] {
				next = append(next, st.with(k, v))
			}
		}
		steps = next
	}
	steps = g.varSteps(steps)
	for i := range steps {
		steps[i].Label = labelOf(steps[i].Params, keys, steps[i].Load)
		steps[i].Label = g.withVars(steps[i].Label, steps[i].Vars)
		steps[i].ShownVars = g.shownVars(steps[i].Vars)
	}
	return steps
}

// shownVars are a step's values of the vars as they may be shown.
func (g *Group) shownVars(vals map[string]string) map[string]string {
	if vals == nil {
		return nil
	}
	out := make(map[string]string, len(vals))
	for k, v := range vals {
		out[k] = g.Shown(v)
	}
	return out
}

// varSteps multiplies steps by the group's vars: a var of one value is
// set in every step, one of several makes a step for each.
func (g *Group) varSteps(steps []Step) []Step {
	for _, name := range g.VarNames() {
		var next []Step
		for _, st := range steps {
			for _, v := range g.Vars[name] {
				vars := maps.Clone(st.Vars)
				if vars == nil {
					vars = map[string]string{}
				}
				vars[name] = v
				st.Vars = vars
				next = append(next, st)
			}
		}
		steps = next
	}
	return steps
}

// withVars adds the swept vars (those of several values) to a label, a
// secret in them redacted (varLabel).
func (g *Group) withVars(label string, vals map[string]string) string {
	var parts []string
	for _, name := range g.VarNames() {
		if len(g.Vars[name]) > 1 {
			parts = append(parts, name+"="+g.varLabel(name, vals[name]))
		}
	}
	switch {
	case len(parts) == 0:
		return label
	case label == "run":
		return strings.Join(parts, ",")
	}
	return label + "," + strings.Join(parts, ",")
}

// VarNames are the group's vars' names in order: what templates index
// step values by (tmpl.Scope.Step, StepValues).
func (g *Group) VarNames() []string { return slices.Sorted(maps.Keys(g.Vars)) }

// StepValues are a step's values of the group's vars, in VarNames' order.
func (g *Group) StepValues(vals map[string]string) []string {
	names := g.VarNames()
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = vals[n]
	}
	return out
}

func (s Step) with(key string, v float64) Step {
	params := make(map[string]float64, len(s.Params)+1)
	for k, x := range s.Params {
		params[k] = x
	}
	params[key] = v
	s.Params = params
	switch key {
	case "concurrency":
		s.Load.Concurrency = int(v)
	case "rate":
		s.Load.Rate = v
	case "max_in_flight":
		s.Load.MaxInFlight = int(v)
	}
	return s
}

func labelOf(params map[string]float64, keys []string, l Load) string {
	if len(keys) == 0 {
		switch {
		case len(l.Stages) > 0:
			return stagesLabel(l)
		case l.OpenLoop():
			params["rate"] = l.Rate
			return "rate=" + num(l.Rate)
		case l.Concurrency > 0:
			params["concurrency"] = float64(l.Concurrency)
			return fmt.Sprintf("concurrency=%d", l.Concurrency)
		}
		return "run"
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + num(params[k])
	}
	return strings.Join(parts, ",")
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
