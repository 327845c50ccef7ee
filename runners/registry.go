package runners

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// Kind is a runner kind of the plan's `runner:` key.
type Kind struct {
	// Name is the value of `runner:`.
	Name string
	// Sections are the group-level plan keys (such as `http:`) this kind
	// reads, each with the function that returns a fresh value (a pointer
	// to a struct with yaml tags) for the decoder to fill. Two kinds may
	// read the same section when its type is the same.
	Sections map[string]func() any
	// Validate reports problems of a group using this kind, beyond what the
	// plan decoder checks (a missing section, a load it cannot drive).
	Validate func(g *plan.Group) []error
	// New builds the runner for a group.
	New func(g *plan.Group, env *RunEnv) (Runner, error)
	// TargetExits says the runner makes the target exit (shutdown under
	// load): the exit is recorded, but never stops the step, whatever
	// on_target_exit says.
	TargetExits bool
	// Addons are group-level sections any group may carry, whatever its
	// runner, that come with this kind (pgload's `verify:` list).
	Addons []Addon
	// Shardable, when set, reports why a group of this kind cannot run
	// split over shards (a database of its own per shard, say), as a
	// plan.Errorf naming the group, the key and its place in the file.
	// It is asked when a sharded run is checked (`run --shard`, `kube`),
	// before anything starts.
	Shardable func(g *plan.Group) error
	// Params are the sweep keys, beyond plan.LoadKeys, that this kind's
	// runners read from StepEnv.Params (sse: subscribers). Sweeping any
	// other key is a plan error: it would run identical steps.
	Params []string
	// Units, when set, is how many goroutines and connections a group of
	// this kind holds in a step of load shape load and sweep values
	// params, when that is not the load's workers (sse: its subscribers),
	// with the plan key that set it ("sse.subscribers"). The loads of a
	// group add theirs up against plan.MaxWorkers, as for one load.
	Units func(g *plan.Group, load plan.Load, params map[string]float64) (n int, key string)
	// Counters, when set, names the counters (artifacts.Step.Counters) a
	// group of this kind counts. The engine writes each of them in every
	// step, at 0 when nothing was counted, so a check on one
	// (`counters.streams_cut == 0`) reads a true zero, never a missing name.
	Counters func(g *plan.Group) []string
}

// CounterNames are the counters a group g of kind k counts (Kind.Counters),
// none when the kind declares none.
func (k Kind) CounterNames(g *plan.Group) []string {
	if k.Counters == nil {
		return nil
	}
	return k.Counters(g)
}

// FixedCounters is a Kind.Counters that names the same counters for every
// group.
func FixedCounters(names ...string) func(*plan.Group) []string {
	return func(*plan.Group) []string { return names }
}

// Addon is a group-level section that any group may carry: its decoder,
// its checks at plan time, and a hook run after every step of the group.
type Addon struct {
	Section   string
	New       func() any
	Validate  func(g *plan.Group) []error
	AfterStep StepHook
	// Merged, in a distributed run, runs in AfterStep's place (and the
	// runner's own checks of the same kind): once per step of the merge,
	// with the whole run's counts; a shard's counts are only its share.
	Merged StepHook
}

// StepHook runs after every step of a group, once its figures are final:
// group-level checks that belong to no runner, such as a `verify:` list
// reconciling accepted requests against database rows. An error is noted
// in the artifact.
type StepHook func(ctx context.Context, g *plan.Group, sum Summary) ([]Check, error)

// Check is a pass/fail judgement a runner or a hook adds to a step.
type Check = artifacts.Check

// Registry lists the runner kinds a plan may name. It is a plain value:
// cmd/benchtui builds one with every kind, tests build their own; it is
// not changed after NewRegistry returns, so it is safe from any goroutine.
type Registry struct {
	kinds    map[string]Kind
	sections map[string]func() any
	addons   []Addon
}

var _ plan.Schema = (*Registry)(nil)

// NewRegistry returns a registry of kinds. A kind given twice, or two
// sections of one name with different types, is an error.
func NewRegistry(kinds ...Kind) (*Registry, error) {
	r := &Registry{kinds: map[string]Kind{}, sections: map[string]func() any{}}
	for _, k := range kinds {
		if _, dup := r.kinds[k.Name]; dup || k.Name == "" || k.New == nil {
			return nil, fmt.Errorf("runner kind %q: given twice, unnamed or without New", k.Name)
		}
		r.kinds[k.Name] = k
		for name, newSpec := range k.Sections {
			if err := r.addSection(name, newSpec); err != nil {
				return nil, err
			}
		}
		for _, a := range k.Addons {
			if err := r.addSection(a.Section, a.New); err != nil {
				return nil, err
			}
			if !slices.ContainsFunc(r.addons, func(b Addon) bool { return b.Section == a.Section }) {
				r.addons = append(r.addons, a)
			}
		}
	}
	return r, nil
}

// MustRegistry is NewRegistry for a fixed list of kinds; it panics on a
// programming error (a kind given twice).
func MustRegistry(kinds ...Kind) *Registry {
	r, err := NewRegistry(kinds...)
	if err != nil {
		panic(err)
	}
	return r
}

func (r *Registry) addSection(name string, newSpec func() any) error {
	if old, ok := r.sections[name]; ok {
		if reflect.TypeOf(old()) != reflect.TypeOf(newSpec()) {
			return fmt.Errorf("plan section %q declared twice with different types", name)
		}
		return nil
	}
	r.sections[name] = newSpec
	return nil
}

// Kind returns the kind of that name.
func (r *Registry) Kind(name string) (Kind, bool) {
	k, ok := r.kinds[name]
	return k, ok
}

// Addons are the group-level sections any group may carry.
func (r *Registry) Addons() []Addon { return r.addons }

// Section implements plan.Schema.
func (r *Registry) Section(name string) (func() any, bool) {
	f, ok := r.sections[name]
	return f, ok
}

// KindNames implements plan.Schema: the kinds' names, sorted.
func (r *Registry) KindNames() []string {
	names := make([]string, 0, len(r.kinds))
	for n := range r.kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ValidateGroup implements plan.Schema: the kind's own checks and every
// addon's, and whether the kind is known.
func (r *Registry) ValidateGroup(g *plan.Group) (known bool, errs []error) {
	k, known := r.kinds[g.Runner]
	if known {
		errs = append(errs, r.foreignSections(k, g)...)
		if g.Loads == nil { // a group with loads: sweeps its loads' keys, which their kinds check
			errs = append(errs, unreadParams(k, g)...)
		}
	}
	if known && k.Validate != nil {
		errs = append(errs, k.Validate(g)...)
	}
	for _, a := range r.addons {
		if a.Validate != nil {
			errs = append(errs, a.Validate(g)...)
		}
	}
	return known, errs
}

// foreignSections are the sections of g that neither its kind nor an
// addon reads: a `postgres:` section on an http group would be ignored.
func (r *Registry) foreignSections(k Kind, g *plan.Group) []error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(g.Sections)) {
		_, own := k.Sections[name]
		addon := slices.ContainsFunc(r.addons, func(a Addon) bool { return a.Section == name })
		if !own && !addon {
			errs = append(errs, plan.Errorf(g.SectionPos[name], "group "+g.ID+": "+name,
				"runner %s does not read a %s: section (it reads: %s)", k.Name, name, sectionList(k)))
		}
	}
	return errs
}

// sectionList names the sections k reads, for messages.
func sectionList(k Kind) string {
	if len(k.Sections) == 0 {
		return "none of its own"
	}
	return strings.Join(slices.Sorted(maps.Keys(k.Sections)), ", ")
}

// unreadParams are the sweep keys of g that k's runners do not read.
func unreadParams(k Kind, g *plan.Group) []error {
	var errs []error
	for _, key := range slices.Sorted(maps.Keys(g.Sweep)) {
		if !slices.Contains(plan.LoadKeys, key) && !slices.Contains(k.Params, key) {
			readable := append(slices.Clone(plan.LoadKeys), k.Params...)
			errs = append(errs, plan.Errorf(g.Pos, "group "+g.ID+": sweep."+key,
				"runner %s reads no parameter %q: every step would be the same (sweepable: %s)", k.Name, key, strings.Join(readable, ", ")))
		}
	}
	return errs
}
