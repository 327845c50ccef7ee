package plan

import (
	"fmt"
	"slices"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
)

// nameKeys are the keys whose values name things: the artifact folder,
// a group (its files), a load, request, probe, action or check (figures,
// metric labels, rows on screen), a target (log files), a series, a
// figure. A secret in one could not be redacted (a file's name, a figure
// a check reads), so it is refused; so is one in any mapping key.
var nameKeys = map[string]bool{"artifacts": true, "id": true, "name": true, "target": true, "series": true, "figure": true}

// secretNameProblems reports every id, name or key of the tree under n
// (aliases followed) that received a secret ${VAR}; key is n's own key.
func (d *decoder) secretNameProblems(n *yaml.Node, key, path string) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if _, secret := d.shown[k]; secret {
				d.errorf(k, joinKey(path, d.shown[k]), "a key holds a secret ${VAR}: keys name things, where a secret cannot be redacted; write it out")
				continue
			}
			d.secretNameProblems(n.Content[i+1], k.Value, joinKey(path, k.Value))
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			d.secretNameProblems(c, key, fmt.Sprintf("%s[%d]", path, i))
		}
	case yaml.ScalarNode:
		if _, secret := d.shown[n]; secret && nameKeys[key] {
			d.errorf(n, path, "holds a secret ${VAR}: an id or name labels figures and metrics and names files, where a secret cannot be redacted; write it out")
		}
	}
}

// shortSecret is the problem of a secret too short to be found in text
// again: one of fewer than MinSearchedSecret bytes. name is the variable.
func shortSecret(name, val string) (string, bool) {
	if val == "" || len(val) >= MinSearchedSecret {
		return "", false
	}
	return fmt.Sprintf("%s is named like a secret and its value is %d bytes: a secret is redacted by finding it in text, and one shorter than %d bytes cannot be told from other text; give a longer value, or a name without PASSWORD, PASSWD, TOKEN, SECRET, KEY, AUTHORIZATION or COOKIE if it is no secret",
		name, len(val), MinSearchedSecret), true
}

// Shown is s, the text of one of g's fields, as it may be shown: when a
// secret ${VAR} was put in it, with that value redacted.
func (g *Group) Shown(s string) string {
	if g.src != nil {
		if shown, ok := g.src.shown[s]; ok {
			return shown
		}
	}
	return s
}

// varLabel is a step value v of the group's var name as the step's label
// shows it: as written, or with a secret redacted and, when another value
// of the var shows the same, its place in the list (T=[redacted]#2).
func (g *Group) varLabel(name, v string) string {
	shown := g.Shown(v)
	if shown == v {
		return v
	}
	vals := g.Vars[name]
	same := 0
	for _, o := range vals {
		if g.Shown(o) == shown {
			same++
		}
	}
	if same < 2 {
		return shown
	}
	return shown + "#" + strconv.Itoa(slices.Index(vals, v)+1)
}
