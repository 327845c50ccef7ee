package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/benchtui/benchtui/runners/tmpl"
	yaml "go.yaml.in/yaml/v3"
)

// LoadPlan reads, expands and validates the plan file at path. The error,
// when there is one, joins every problem found, each naming file:line:column
// and key.
func LoadPlan(path string, schema Schema) (*Plan, error) {
	data, err := readPlanFile(path)
	if err != nil {
		return nil, err
	}
	return ParsePlan(path, data, os.LookupEnv, schema)
}

// Schema is what the decoder needs to know of the runner kinds: the
// sections a group may carry, the kinds' names and each kind's own checks.
// runners.Registry is one.
type Schema interface {
	// Section returns the constructor of a group-level section's value.
	Section(name string) (newSpec func() any, ok bool)
	// KindNames lists the kinds, for messages.
	KindNames() []string
	// ValidateGroup runs the group's kind's checks (and any that apply to
	// every group); known is false when no kind has the group's runner name.
	ValidateGroup(g *Group) (known bool, errs []error)
}

// ParsePlan parses a plan from data; file names it in messages, lookup
// resolves ${VAR}s and schema knows the runner kinds and their sections.
func ParsePlan(file string, data []byte, lookup func(string) (string, bool), schema Schema) (*Plan, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, syntaxError(file, data, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s:1:1: empty plan", file)
	}
	if err := checkExpandedSize(file, &root, MaxPlanNodes); err != nil {
		return nil, err
	}
	d := &decoder{file: file, schema: schema, written: writtenGroups(root.Content[0]), shown: map[*yaml.Node]string{}}
	ex := &expander{d: d, lookup: lookup, src: newFieldSources()}
	ex.walk(root.Content[0])
	d.secretNameProblems(root.Content[0], "", "")
	for n, shown := range d.shown {
		ex.src.shown[n.Value] = shown
	}
	plan := &Plan{Path: file, Secrets: ex.secrets, EnvNames: slices.Sorted(maps.Keys(ex.read))}
	sum := sha256.Sum256(data)
	plan.SHA256 = hex.EncodeToString(sum[:])
	d.plan(root.Content[0], plan)
	for _, g := range plan.Groups {
		g.src = ex.src
	}
	d.errs = append(d.errs, withoutEchoes(d.errs, plan.validate(schema), plan.Groups)...)
	if len(d.errs) > 0 {
		return nil, &PlanError{Errs: d.errs, plan: plan}
	}
	return plan, nil
}

// PlanError holds every problem of a plan file, each a *PosError. Its
// message has the plan's secrets redacted: a bad value may be one.
type PlanError struct {
	Errs []error
	plan *Plan
}

func (e *PlanError) Error() string { return e.plan.Redact(errors.Join(e.Errs...).Error()) }

// Unwrap gives the single problems to errors.Is and errors.As.
func (e *PlanError) Unwrap() []error { return e.Errs }

func (d *decoder) plan(n *yaml.Node, p *Plan) {
	v := reflect.ValueOf(p).Elem()
	d.structure(n, v, "", func(k, _ *yaml.Node) bool { return k.Value == "groups" })
	groups := mappingValue(n, "groups")
	if groups == nil {
		d.errorf(n, "groups", "missing (required)")
		return
	}
	if groups.Kind != yaml.SequenceNode {
		d.errorf(groups, "groups", "want a list, got a %s", kindName(groups))
		return
	}
	for i, gn := range groups.Content {
		g := d.group(gn, fmt.Sprintf("groups[%d]", i))
		g.Raw, _ = redactedTree(gn, d.shown).(map[string]any)
		g.reads = map[string]bool{}
		readNamesIn(gn, g.reads)
		if i < len(d.written) {
			g.Written = d.written[i]
		}
		p.Groups = append(p.Groups, g)
	}
	for name, t := range p.Targets {
		tn := mappingValue(mappingValue(n, "targets"), name)
		if t == nil {
			d.errorf(tn, "targets."+name, "empty target: give command, pid, pidfile, cgroup or container")
			delete(p.Targets, name)
			continue
		}
		t.Pos = d.pos(tn)
	}
}

func (d *decoder) group(n *yaml.Node, key string) *Group {
	g := &Group{Pos: d.pos(n), Sections: map[string]any{}, SectionPos: map[string]Pos{}}
	sections := d.sectionOf(g, key)
	d.structure(n, reflect.ValueOf(g).Elem(), key, func(k, val *yaml.Node) bool {
		switch k.Value {
		case "loads":
			d.loads(val, g, joinKey(key, "loads"))
			return true
		case "target":
			d.groupTargets(val, g, joinKey(key, "target"))
			return true
		}
		return sections(k, val)
	})
	d.loadsRunner(n, g, key)
	d.stagesSwept(n, g)
	g.stagesDuration()
	if shown, ok := d.shown[mappingValue(n, "title")]; ok {
		g.Title = shown // shown on screen and kept in the artifact
	}
	return g
}

// sectionOf returns the decoder of the runner sections (`http:`, …) of
// g, whose key in messages is key: it decodes a section the schema knows
// into g.Sections and reports whether it knew it.
func (d *decoder) sectionOf(g *Group, key string) func(k, val *yaml.Node) bool {
	return func(k, val *yaml.Node) bool {
		newSpec, ok := d.schema.Section(k.Value)
		if !ok {
			return false
		}
		spec := newSpec()
		d.decode(val, reflect.ValueOf(spec).Elem(), joinKey(key, k.Value))
		g.Sections[k.Value] = spec
		g.SectionPos[k.Value] = d.pos(val)
		return true
	}
}

// writtenGroups renders each group as written, before ${VAR} expansion:
// the same plan run twice (with other ports or tokens in its environment)
// has the same written config. Secret-named keys and URL passwords are
// redacted as in Raw.
func writtenGroups(root *yaml.Node) []map[string]any {
	groups := mappingValue(root, "groups")
	if groups == nil || groups.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]map[string]any, len(groups.Content))
	for i, gn := range groups.Content {
		out[i], _ = redactedTree(gn, nil).(map[string]any)
	}
	return out
}

func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// expander replaces ${VAR} and ${VAR:-default} in every scalar of the tree,
// after parsing, so an expanded value can never change the YAML structure.
type expander struct {
	d       *decoder
	lookup  func(string) (string, bool)
	secrets []string
	src     *fieldSources   // {{env "NAME"}} values and fields holding ${VAR} values
	read    map[string]bool // the variables read from the environment
}

// readVar notes that the plan read the variable name from the environment.
func (e *expander) readVar(name string) {
	if e.read == nil {
		e.read = map[string]bool{}
	}
	e.read[name] = true
}

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

func (e *expander) walk(n *yaml.Node) {
	if n.Kind != yaml.ScalarNode {
		for _, c := range n.Content {
			e.walk(c)
		}
		return
	}
	pieces := []tmpl.Piece{{Text: n.Value}}
	if strings.Contains(n.Value, "${") {
		shown, secret := e.shown(n)
		pieces = e.expand(n)
		n.Value = joinPieces(pieces)
		if secret {
			e.d.shown[n] = shown
		}
		e.src.note(n.Value, pieces)
	}
	for _, p := range pieces {
		if !p.Literal {
			e.templateEnv(n, p.Text)
		}
	}
}

// expand cuts n's value into the text written in the plan and the values
// of its ${VAR}s (literal pieces: data, never template source).
func (e *expander) expand(n *yaml.Node) []tmpl.Piece {
	var pieces []tmpl.Piece
	last := 0
	for _, ix := range varRef.FindAllStringSubmatchIndex(n.Value, -1) {
		ref := n.Value[ix[0]:ix[1]]
		m := varRef.FindStringSubmatch(ref)
		pieces = append(pieces, tmpl.Piece{Text: n.Value[last:ix[0]]})
		last = ix[1]
		val, set := e.value(m)
		if !set {
			e.d.errorf(n, "${"+m[1]+"}", "environment variable %s is not set (write ${%s:-default} for a default)", m[1], m[1])
			pieces = append(pieces, tmpl.Piece{Text: ref})
			continue
		}
		e.secret(n, "${"+m[1]+"}", m[1], val)
		pieces = append(pieces, tmpl.Piece{Text: val, Literal: true})
	}
	return append(pieces, tmpl.Piece{Text: n.Value[last:]})
}

func joinPieces(pieces []tmpl.Piece) string {
	var b strings.Builder
	for _, p := range pieces {
		b.WriteString(p.Text)
	}
	return b.String()
}

// templateEnv reads the variables of the {{env "NAME"}} actions of text
// written in the plan (never of a ${VAR}'s value) once, when the plan is
// read, with the lookup of ${NAME}: templates are compiled from the
// values read then, never from the process's environment later. A value
// named like a secret joins the plan's secrets; the field itself is left
// as written, so it shows the action, not the value.
func (e *expander) templateEnv(n *yaml.Node, text string) {
	for _, name := range tmpl.EnvNames(text) {
		val, set := e.lookup(name)
		if !set {
			e.d.errorf(n, "{{env}}", "environment variable %s is not set", name)
			continue
		}
		e.src.env[name] = val
		e.readVar(name)
		e.secret(n, "{{env}}", name, val)
	}
}

// secret adds val, the value of variable name read at n (key), to the
// plan's secrets when name is like a secret's; a secret too short to be
// found in text again is a problem.
func (e *expander) secret(n *yaml.Node, key, name, val string) {
	if !SecretName(name) || val == "" {
		return
	}
	e.secrets = append(e.secrets, val)
	if msg, short := shortSecret(name, val); short {
		e.d.errorf(n, key, "%s", msg)
	}
}

// shown is n's value as benchtui may show it: expanded, with each secret
// variable's value replaced by Redacted. secret says whether there was one.
func (e *expander) shown(n *yaml.Node) (shown string, secret bool) {
	shown = varRef.ReplaceAllStringFunc(n.Value, func(ref string) string {
		m := varRef.FindStringSubmatch(ref)
		val, _ := e.value(m)
		if SecretName(m[1]) && val != "" {
			secret = true
			return Redacted
		}
		return val
	})
	return shown, secret
}

// value is the value of a ${VAR} or ${VAR:-default} match; set is false
// when the variable is unset and has no default.
func (e *expander) value(m []string) (val string, set bool) {
	val, ok := e.lookup(m[1])
	if !ok || (val == "" && m[2] != "") {
		return m[3], m[2] != ""
	}
	e.readVar(m[1])
	return val, true
}

// SecretName reports whether a variable or key name is one whose value must
// never be shown: *PASSWORD*, *TOKEN*, *SECRET*, *KEY*, Authorization, Cookie.
func SecretName(name string) bool {
	u := strings.ToUpper(name)
	for _, s := range []string{"PASSWORD", "PASSWD", "TOKEN", "SECRET", "KEY", "AUTHORIZATION", "COOKIE"} {
		if strings.Contains(u, s) {
			return true
		}
	}
	return false
}

func sortStrings(s []string) { sort.Strings(s) }
