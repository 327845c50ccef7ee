package plan

import (
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/tmpl"
)

// TestVariableValuesAreNeverTemplateSource: a ${VAR} whose value holds
// template actions puts them in a field as data: the field renders them as
// written, the environment variable they name is never read, and a ${VAR}
// between an action's braces is refused.
func TestVariableValuesAreNeverTemplateSource(t *testing.T) {
	vars := map[string]string{"BRANCH": `{{env "API_TOKEN"}}`, "ID": "{{uuid}}", "API_TOKEN": "CANARY-tok-9f3", "NAME": "API_TOKEN"}
	src := strings.Replace(goodPlan, "title: sleepy", `title: "b=${BRANCH} id=${ID} n={{seq}}"`, 1)
	p, err := ParsePlan("plan.yaml", []byte(src), env(vars), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	g := p.Groups[0]
	tp, err := g.Template(Pos{}, "title", g.Title)
	if err != nil {
		t.Fatal(err)
	}
	s := tmpl.NewState(nil, nil)
	s.Next()
	if got := string(tp.Append(nil, s)); got != `b={{env "API_TOKEN"}} id={{uuid}} n=1` {
		t.Errorf("rendered %q: want the values as written and the plan's own {{seq}} filled", got)
	}
	if v := g.getenv()("API_TOKEN"); v != "" || len(p.Secrets) != 0 {
		t.Errorf("a value's {{env}} was read: %q, secrets %q", v, p.Secrets)
	}
	src = strings.Replace(goodPlan, "title: sleepy", `title: '{{env "${NAME}"}}'`, 1)
	p, err = ParsePlan("plan.yaml", []byte(src), env(vars), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Groups[0].Template(Pos{}, "title", p.Groups[0].Title); err == nil || !strings.Contains(err.Error(), "a value is data") {
		t.Errorf("a ${VAR} inside {{…}} compiled: %v", err)
	}
}
