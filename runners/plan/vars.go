package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Limits of a group's vars (vars:).
const (
	// MaxVars bounds the vars of a group.
	MaxVars = 16
	// MaxVarBytes bounds a var's value.
	MaxVarBytes = 1 << 10
)

var validVarName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// varProblems checks the group's vars: their names, values and count,
// that none shadows a data column, and that something reads each one (a
// var nobody reads would run identical steps).
func (g *Group) varProblems() []error {
	var errs []error
	at := func(key, format string, args ...any) {
		errs = append(errs, Errorf(g.Pos, fmt.Sprintf("group %s: vars.%s", g.ID, key), format, args...))
	}
	if len(g.Vars) > MaxVars {
		return []error{Errorf(g.Pos, "group "+g.ID+": vars", "%d vars; at most %d", len(g.Vars), MaxVars)}
	}
	used := g.reads
	for _, name := range g.VarNames() {
		vals := g.Vars[name]
		switch {
		case !validVarName.MatchString(name):
			at(name, "want a name of letters, digits and _ (a letter first, up to 64)")
		case len(vals) == 0:
			at(name, "needs at least one value")
		case g.Table != nil && slices.Contains(g.Table.Columns, name):
			at(name, "%q is also a column of the data file; name the var apart", name)
		case !used[name]:
			at(name, "nothing reads it: write {{.%s}} in a request field or $var:%s in a postgres arg", name, name)
		}
		for i, v := range vals {
			if len(v) > MaxVarBytes || strings.ContainsFunc(v, isControl) {
				at(fmt.Sprintf("%s[%d]", name, i), "want up to %d bytes without control characters", MaxVarBytes)
			}
		}
	}
	return errs
}

// stepsOfVars is how many steps the vars make (capped past MaxSteps).
func (g *Group) stepsOfVars() int {
	n := 1
	for _, vals := range g.Vars {
		n = min(n*max(len(vals), 1), MaxSteps+1)
	}
	return n
}

// readRef finds the names a group's fields read: {{.NAME}} in a template,
// $var:NAME in a postgres arg.
var readRef = regexp.MustCompile(`\{\{-?\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*-?\}\}|\$var:([A-Za-z_][A-Za-z0-9_]*)`)

// readNamesIn adds to used the names that the strings under n, a group's
// node, read outside vars: (aliases followed). It reads the plan's
// nodes, not the config kept for the artifact, where the values of
// secret-named keys (an Authorization header reading {{.AUTH}}) are
// redacted.
func readNamesIn(n *yaml.Node, used map[string]bool) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.ScalarNode:
		for _, m := range readRef.FindAllStringSubmatch(n.Value, -1) {
			used[m[1]+m[2]] = true
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value != "vars" {
				readNamesIn(n.Content[i+1], used)
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			readNamesIn(c, used)
		}
	}
}

func isControl(r rune) bool { return r < ' ' || r == 0x7f }
