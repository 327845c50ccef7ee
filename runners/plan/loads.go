package plan

import (
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/benchtui/benchtui/artifacts"
)

// LoadsRunner is the runner of a group with `loads:`: the decoder sets it,
// and the kind of that name (runners/loads) drives the group's loads
// together. A plan does not write it.
const LoadsRunner = artifacts.LoadsRunner

// MaxLoads bounds the loads of a group: each holds its own workers and
// recorders, and the console lists them as rows.
const MaxLoads = 16

// NamedLoad is one entry of a group's `loads:` list: a load with its own
// name, runner, runner section and load shape, run on the group's clock
// (warmup, duration, pauses, extensions, soak) beside the others.
type NamedLoad struct {
	Name   string `yaml:"name,required"`
	Runner string `yaml:"runner,required"`
	Load   Load   `yaml:"load"`
	// Iterations, when positive, ends this load after that many operations
	// (runners the engine's loops drive; not with a warmup, which would
	// spend them); the step goes on while the other loads run, and ends at
	// the group's duration or when every load has ended.
	Iterations int64 `yaml:"iterations"`
	// Group is the load as its runner kind sees it: its runner, load and
	// sections, with the enclosing group's clock, target and data; its ID
	// reads "G6: loads.emits" in messages. Filled when the plan is
	// validated.
	Group *Group `yaml:"-"`
	Pos   Pos    `yaml:"-"`
}

// loadsKey prefixes the sweep keys that address one load:
// loads.NAME.KEY sweeps KEY (rate, concurrency, a runner's parameter) of
// the load named NAME.
const loadsKey = "loads."

// validLoadName is what a load's name may be: it names the load's figures
// (steps[].by_name) and its sweep keys, so no dots or slashes.
var validLoadName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

// loads decodes a group's `loads:` list into g.Loads; each entry's runner
// sections are decoded as a group's are.
func (d *decoder) loads(n *yaml.Node, g *Group, key string) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, key, "want a list of loads, got a %s", kindName(n))
		return
	}
	if len(n.Content) == 0 || len(n.Content) > MaxLoads {
		d.errorf(n, key, "want 1 to %d loads, got %d", MaxLoads, len(n.Content))
	}
	g.Loads = []*NamedLoad{} // given, even when empty: the group is a loads group
	for i, item := range n.Content {
		itemKey := fmt.Sprintf("%s[%d]", key, i)
		sub := &Group{Pos: d.pos(item), Sections: map[string]any{}, SectionPos: map[string]Pos{}}
		l := &NamedLoad{Group: sub, Pos: d.pos(item)}
		d.structure(item, reflect.ValueOf(l).Elem(), itemKey, d.sectionOf(sub, itemKey))
		g.Loads = append(g.Loads, l)
	}
}

// loadsRunner settles the runner of a group after decoding: a group with
// loads runs LoadsRunner and names no runner of its own; any other group
// must name one.
func (d *decoder) loadsRunner(n *yaml.Node, g *Group, key string) {
	written := mappingValue(n, "runner")
	switch {
	case g.Loads == nil && written == nil:
		d.errorf(n, joinKey(key, "runner"), "missing (required)")
	case g.Loads != nil && written != nil:
		d.errorf(written, joinKey(key, "runner"), "a group with loads: names the runner of each load; leave runner: out")
	}
	if g.Loads != nil {
		g.Runner = LoadsRunner // its loads are checked, whatever runner: said
	}
	if g.Loads != nil && mappingValue(n, "load") != nil {
		d.errorf(mappingValue(n, "load"), joinKey(key, "load"), "a group with loads: gives each load its own load:; leave the group's out")
	}
}

// validateLoads checks a group's loads: names, the group-level keys that
// belong to a load, sweep keys, and each load's shape; it fills each
// load's Group. The loads' runner kinds check the rest (runners/loads).
func (g *Group) validateLoads() []error {
	if g.Loads == nil {
		return nil
	}
	var errs []error
	at := func(pos Pos, key, format string, args ...any) {
		errs = append(errs, Errorf(pos, fmt.Sprintf("group %s: %s", g.ID, key), format, args...))
	}
	if g.Counted() {
		at(g.Pos, "iterations", "a group with loads: counts each load's own operations: give iterations in a load")
	}
	seen := map[string]bool{}
	for i, l := range g.Loads {
		key := fmt.Sprintf("loads[%d].name", i)
		switch {
		case seen[l.Name]:
			at(l.Pos, key, "load %q given twice", l.Name)
		case l.Name != "" && !validLoadName.MatchString(l.Name):
			at(l.Pos, key, "%q: want 1 to 32 letters, digits, '_' or '-', starting with a letter or digit (it names the load's figures)", l.Name)
		}
		seen[l.Name] = true
		g.adopt(l)
		errs = append(errs, l.Group.validateLoad()...)
	}
	for _, k := range slices.Sorted(maps.Keys(g.Sweep)) {
		name, _, ok := strings.Cut(strings.TrimPrefix(k, loadsKey), ".")
		if !strings.HasPrefix(k, loadsKey) || !ok || !seen[name] {
			at(g.Pos, "sweep."+k, "a group with loads: sweeps a key of one load: write loads.NAME.KEY (loads: %s)", strings.Join(g.loadNames(), ", "))
		}
	}
	return errs
}

// adopt fills l.Group from l and from g: the group's clock, target and
// data, and the sweep keys that address l.
func (g *Group) adopt(l *NamedLoad) {
	sub := l.Group
	sub.ID, sub.Title = g.ID+": loads."+l.Name, g.Title
	sub.Runner, sub.Load, sub.Target = l.Runner, l.Load, g.Target
	sub.Targets, sub.TargetPos = g.Targets, g.TargetPos
	sub.Warmup, sub.Duration, sub.OnTargetExit = g.Warmup, g.Duration, g.OnTargetExit
	sub.Data, sub.Table, sub.src, sub.Vars = g.Data, g.Table, g.src, g.Vars
	// A counted load ends after its iterations; the group's duration still
	// bounds the step, the load's own checks (a warmup would spend its
	// count) are its kind's and countProblems'.
	sub.Iterations = l.Iterations
	if l.Iterations != 0 {
		sub.Duration = Duration{}
	}
	sub.Sweep = nil
	prefix := loadsKey + l.Name + "."
	for k, vals := range g.Sweep {
		if key, ok := strings.CutPrefix(k, prefix); ok {
			if sub.Sweep == nil {
				sub.Sweep = map[string][]float64{}
			}
			sub.Sweep[key] = vals
		}
	}
}

func (g *Group) loadNames() []string {
	names := make([]string, len(g.Loads))
	for i, l := range g.Loads {
		names[i] = l.Name
	}
	return names
}

// InStep is l's load and parameters in a step of its group whose sweep
// values are params: the step's loads.NAME.* values applied to l's own
// load shape, and given to its runner without the prefix.
func (l *NamedLoad) InStep(params map[string]float64) (Load, map[string]float64) {
	st := Step{Params: map[string]float64{}, Load: l.Load}
	prefix := loadsKey + l.Name + "."
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if key, ok := strings.CutPrefix(k, prefix); ok {
			st = st.with(key, params[k])
		}
	}
	return st.Load, st.Params
}
