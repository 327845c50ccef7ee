package plan

import (
	"slices"
	"strings"
	"testing"
)

func TestGroupTargetsList(t *testing.T) {
	src := strings.Replace(goodPlan, "    target: api\n", "    target: [api, worker]\n", 1)
	src = strings.Replace(src, "targets:\n", "targets:\n  worker: {pid: 1}\n", 1)
	src = strings.Replace(src, "max: 540s}", "max: 540s, target: worker}", 1)
	p, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	g := p.Groups[0]
	if g.Target != "api" || !slices.Equal(g.Targets, []string{"api", "worker"}) || g.SoakTarget() != "worker" {
		t.Errorf("target %q targets %v soak target %q", g.Target, g.Targets, g.SoakTarget())
	}
	// A single name stays valid and is the whole list.
	p, err = ParsePlan("plan.yaml", []byte(goodPlan), env(nil), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	if g := p.Groups[0]; g.Target != "api" || !slices.Equal(g.Targets, []string{"api"}) || g.SoakTarget() != "api" {
		t.Errorf("target %q targets %v soak target %q", g.Target, g.Targets, g.SoakTarget())
	}
}

func TestGroupTargetsErrors(t *testing.T) {
	cases := []struct{ name, from, to, want string }{
		{"unknown in list", "    target: api\n", "    target: [api, wrker]\n",
			`plan.yaml:10:19: group G1: target[1]: no target named "wrker" in targets`},
		{"twice", "    target: api\n", "    target: [api, api]\n",
			`plan.yaml:10:19: group G1: target[1]: target "api" is named twice`},
		{"empty list", "    target: api\n", "    target: []\n",
			`plan.yaml:10:13: groups[0].target: empty list`},
		{"not a name", "    target: api\n", "    target: [api, {a: 1}]\n",
			`plan.yaml:10:19: groups[0].target[1]: want a target name, got a mapping`},
		{"sum among several", "    target: api\n", "    target: [api, sum]\n",
			`plan.yaml:10:19: group G1: target[1]: a target named "sum" cannot be one of several`},
		{"soak target not watched", "max: 540s}", "max: 540s, target: db}",
			`group G1: soak.extend_while_rss_rising.target: "db" is not one of the group's targets [api]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(goodPlan, c.from, c.to, 1)
			_, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}
