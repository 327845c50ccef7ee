// Package loads is the runner of a group with `loads:`: several named
// loads, each with its own runner kind, runner section and load shape,
// started together on the group's clock and stopped together.
//
// The model: the group's runner (plan.LoadsRunner) is a Driver. For each
// step it builds, in Prepare, a view of the step (runners.StepEnv.ForLoad)
// per load: its own load shape and sweep values, and recorders of its own
// that count every operation under the load's name, so each load's
// figures are a named figure of the step (steps[].by_name) and the loads'
// figures add up to the step's. Drive then runs every load at once: a
// Driver load (SSE subscribers) through its own Drive, any other through
// the closed or open loop (runners/loop) over its workers. Pauses, the warmup,
// extensions and the stop reach every load through the step's one gate
// and context.
package loads

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// Kind is the runner of groups with loads:. kinds are the runner kinds a
// load may name; a kind that makes the target exit (shutdown) is left
// out, since it would end every other load with it.
func Kind(kinds ...runners.Kind) runners.Kind {
	var usable []runners.Kind
	for _, k := range kinds {
		if !k.TargetExits && k.Name != plan.LoadsRunner {
			usable = append(usable, k)
		}
	}
	reg := runners.MustRegistry(usable...)
	return runners.Kind{
		Name:     plan.LoadsRunner,
		Validate: func(g *plan.Group) []error { return validate(reg, g) },
		New:      func(g *plan.Group, env *runners.RunEnv) (runners.Runner, error) { return New(reg, g, env) },
		Counters: func(g *plan.Group) []string { return counterNames(reg, g) },
	}
}

// counterNames are the counters the loads of g count, each kind's once
// (counters of one name add up over the loads).
func counterNames(reg *runners.Registry, g *plan.Group) []string {
	var names []string
	for _, l := range g.Loads {
		if k, ok := reg.Kind(l.Runner); ok && l.Group != nil {
			for _, n := range k.CounterNames(l.Group) {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
	}
	return names
}

// validate checks each load of g with its own kind, as if it were a group
// of its own: its runner, its sections, its load and sweep keys; and the
// loads of each step together against the limits of one load.
func validate(reg *runners.Registry, g *plan.Group) []error {
	if len(g.Loads) == 0 {
		return []error{plan.Errorf(g.Pos, "group "+g.ID+": loads", "missing: runner %s runs the loads a group lists under loads:", plan.LoadsRunner)}
	}
	var errs []error
	for i, l := range g.Loads {
		if l.Group == nil || l.Group.ID == "" {
			continue // not validated by the plan (a decoding problem there)
		}
		k, known := reg.Kind(l.Runner)
		if !known {
			errs = append(errs, plan.Errorf(l.Pos, fmt.Sprintf("group %s: loads[%d].runner", g.ID, i),
				"runner %q cannot run as one of several loads (a load may use: %s)", l.Runner, strings.Join(reg.KindNames(), ", ")))
			continue
		}
		_, kindErrs := reg.ValidateGroup(l.Group)
		errs = append(errs, kindErrs...)
		errs = append(errs, groupSections(k, l)...)
	}
	return append(errs, sumProblems(reg, g)...)
}

// groupSections are the sections of a load that are not its runner's
// (an addon such as verify:, which belongs to the group).
func groupSections(k runners.Kind, l *plan.NamedLoad) []error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(l.Group.Sections)) {
		if _, own := k.Sections[name]; !own {
			errs = append(errs, plan.Errorf(l.Group.SectionPos[name], "group "+l.Group.ID+": "+name,
				"belongs to the group, not to one of its loads: move it beside loads:"))
		}
	}
	return errs
}

// Runner runs a group's loads together. It is a runners.Driver.
type Runner struct {
	group *plan.Group
	loads []*load
}

var (
	_ runners.Runner = (*Runner)(nil)
	_ runners.Driver = (*Runner)(nil)
)

// New builds the runner of each load of g with its kind; the loads share
// one runners.Shared (RunEnv.Group), so that, say, their `dsn: embedded`
// is one database.
func New(reg *runners.Registry, g *plan.Group, env *runners.RunEnv) (runners.Runner, error) {
	r := &Runner{group: g}
	shared := &runners.RunEnv{}
	if env != nil {
		*shared = *env
	}
	shared.Group = runners.NewShared()
	env = shared
	for _, l := range g.Loads {
		k, ok := reg.Kind(l.Runner)
		if !ok {
			return nil, errors.Join(fmt.Errorf("group %s: load %s: runner %q cannot run as a load", g.ID, l.Name, l.Runner), r.Close())
		}
		lr, err := k.New(l.Group, env)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("load %s: %w", l.Name, err), r.Close())
		}
		r.loads = append(r.loads, &load{spec: l, kind: k, r: lr})
	}
	return r, nil
}
