package plan

import (
	"fmt"
	"slices"

	yaml "go.yaml.in/yaml/v3"
)

// groupTargets decodes a group's `target:`: one name (`target: api`) or a
// list of them (`target: [api, worker, db]`), each watched; the first is
// the group's Target, the one its artifact's `target` figures describe.
func (d *decoder) groupTargets(n *yaml.Node, g *Group, key string) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		if len(items) == 0 {
			d.errorf(n, key, "empty list: name one target or more")
			return
		}
	}
	for i, item := range items {
		k := key
		if n.Kind == yaml.SequenceNode {
			k = fmt.Sprintf("%s[%d]", key, i)
		}
		if item.Kind != yaml.ScalarNode || item.Value == "" {
			d.errorf(item, k, "want a target name, got a %s", kindName(item))
			continue
		}
		g.Targets = append(g.Targets, item.Value)
		g.TargetPos = append(g.TargetPos, d.pos(item))
	}
	if len(g.Targets) > 0 {
		g.Target = g.Targets[0]
	}
}

// targetProblems are the problems of g's targets: a name not in the plan's
// targets, a name given twice, a soak rule watching a target the group
// does not watch.
func (p *Plan) targetProblems(g *Group) []error {
	var errs []error
	for i, name := range g.Targets {
		key := fmt.Sprintf("group %s: target", g.ID)
		if len(g.Targets) > 1 {
			key = fmt.Sprintf("%s[%d]", key, i)
		}
		pos := g.Pos
		if i < len(g.TargetPos) {
			pos = g.TargetPos[i]
		}
		if p.Targets[name] == nil {
			errs = append(errs, Errorf(pos, key, "no target named %q in targets", name))
		}
		if name == "sum" && len(g.Targets) > 1 {
			// compare's rows and the report name the targets' sum "sum"
			errs = append(errs, Errorf(pos, key, "a target named \"sum\" cannot be one of several (\"sum\" names their sum in comparisons): rename it"))
		}
		if slices.Index(g.Targets, name) < i {
			errs = append(errs, Errorf(pos, key, "target %q is named twice", name))
		}
	}
	if r := g.Soak; r != nil && r.ExtendWhileRSSRising != nil && r.ExtendWhileRSSRising.Target != "" {
		if name := r.ExtendWhileRSSRising.Target; !slices.Contains(g.Targets, name) {
			errs = append(errs, Errorf(g.Pos, fmt.Sprintf("group %s: soak.extend_while_rss_rising.target", g.ID),
				"%q is not one of the group's targets %v", name, g.Targets))
		}
	}
	return errs
}

// SoakTarget is the name of the target whose RSS the soak policy watches:
// the rule's target, else the group's first; "" without a target.
func (g *Group) SoakTarget() string {
	if r := g.Soak; r != nil && r.ExtendWhileRSSRising != nil && r.ExtendWhileRSSRising.Target != "" {
		return r.ExtendWhileRSSRising.Target
	}
	return g.Target
}
