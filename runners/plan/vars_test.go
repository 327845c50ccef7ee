package plan

import (
	"strings"
	"testing"
)

// TestVarsMakeSteps: a var of several values is swept like a sweep key
// (cartesian, labelled), one of one value is set in every step, and each
// step carries its values in the vars' order.
func TestVarsMakeSteps(t *testing.T) {
	// The test schema's sections have no template fields: the title
	// stands in for one that reads the vars.
	src := strings.Replace(goodPlan, "    title: sleepy\n", `    title: "{{.shape}} {{.N}} {{.table}}"
    vars: {N: ["10", "100"], shape: [inline, bound], table: [events]}
    sweep: {concurrency: [1, 4]}
`, 1)
	p, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	g := p.Groups[0]
	steps := Steps(g, 0)
	var labels []string
	for _, st := range steps {
		labels = append(labels, st.Label)
		if st.Vars["table"] != "events" {
			t.Errorf("%s: vars %v", st.Label, st.Vars)
		}
	}
	if got := strings.Join(labels, " "); got != "concurrency=1,N=10,shape=inline concurrency=1,N=10,shape=bound "+
		"concurrency=1,N=100,shape=inline concurrency=1,N=100,shape=bound concurrency=4,N=10,shape=inline "+
		"concurrency=4,N=10,shape=bound concurrency=4,N=100,shape=inline concurrency=4,N=100,shape=bound" {
		t.Errorf("labels %s", got)
	}
	if got := strings.Join(g.StepValues(steps[3].Vars), ","); got != "100,bound,events" {
		t.Errorf("step values %s", got)
	}
}

// TestVarProblems: each var mistake is named by its key.
func TestVarProblems(t *testing.T) {
	cases := map[string]string{
		`vars: {unread: [a, b]}`: "group G1: vars.unread: nothing reads it",
		`vars: {1x: [a]}`:        "vars.1x: want a name of letters",
		`vars: {N: []}`:          "vars.N: needs at least one value",
		`vars: {N: ["a\u0007"]}`: "vars.N[0]: want up to 1024 bytes without control characters",
		`vars: {N: [` + strings.Repeat("1,", 1001) + `1]}`: "sweep: expands to more than 1000 steps",
	}
	for vars, want := range cases {
		src := strings.Replace(goodPlan, "    title: sleepy\n", "    title: \"{{.N}}\"\n    "+vars+"\n", 1)
		_, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", vars, err, want)
		}
	}
}
