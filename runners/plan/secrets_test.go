package plan

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

const canary = "CANARY-5e1f-secret"

// TestSecretInANameIsRefused: a secret ${VAR} in an id, a name, a figure,
// the artifacts folder or any key (directly or through an alias) is a
// plan error naming the place, never the value: those name files and
// label figures, where redaction cannot hold.
func TestSecretInANameIsRefused(t *testing.T) {
	cases := map[string]struct{ from, to, want string }{
		"group id":      {"id: G1", `id: "g-${API_TOKEN}"`, "groups[0].id: holds a secret ${VAR}"},
		"artifacts":     {"artifacts: ./out", "artifacts: ./out-${API_TOKEN}", "artifacts: holds a secret ${VAR}"},
		"target key":    {"  api:\n", "  ${API_TOKEN}:\n", "targets.[redacted]: a key holds a secret ${VAR}"},
		"probe name":    {"    title: sleepy\n", "    title: sleepy\n    probes: [{name: \"p${API_TOKEN}\", command: [\"true\"]}]\n", "groups[0].probes[0].name: holds a secret"},
		"check figure":  {"error_rate: 0}", "error_rate: 0, checks: [{figure: \"by_name.${API_TOKEN}.p99\", \"<\": 1}]}", "groups[0].thresholds.checks[0].figure: holds a secret"},
		"action name":   {"    title: sleepy\n", "    title: sleepy\n    actions: [{at: 1s, exec: [\"true\"], name: \"a ${API_TOKEN}\"}]\n", "groups[0].actions[0].name: holds a secret"},
		"through alias": {"    title: sleepy\n    target: api\n", "    title: &t \"${API_TOKEN}\"\n    target: *t\n", "groups[0].target: holds a secret"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(goodPlan, c.from) {
				t.Fatalf("the plan lacks %q", c.from)
			}
			src := strings.Replace(goodPlan, c.from, c.to, 1)
			_, err := ParsePlan("plan.yaml", []byte(src), env(map[string]string{"API_TOKEN": canary}), testSchema{})
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), canary) {
				t.Errorf("got %v\nwant %q, without the secret", err, c.want)
			}
		})
	}
}

// TestSecretVarsAreRedactedInLabels: a var whose values hold secrets
// labels its steps with them redacted, each label still its own, and
// the step's stored vars are redacted too; other values show as written.
func TestSecretVarsAreRedactedInLabels(t *testing.T) {
	src := strings.Replace(goodPlan, "    title: sleepy\n", `    title: "{{.T}} {{.U}} {{.V}}"
    vars: {T: ["${API_TOKEN}", "x"], U: ["${API_TOKEN}", "${B_TOKEN}", "[redacted]"], V: ["Bearer ${API_TOKEN}"]}
`, 1)
	p, err := ParsePlan("plan.yaml", []byte(src), env(map[string]string{"API_TOKEN": canary, "B_TOKEN": "other-" + canary}), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var labels []string
	for _, st := range Steps(p.Groups[0], 0) {
		labels = append(labels, st.Label)
		if seen[st.Label] || strings.Contains(st.Label, canary) || strings.Contains(strings.Join(slices.Collect(maps.Values(st.ShownVars)), " "), canary) {
			t.Errorf("step %q (vars %v): want a label of its own and no secret", st.Label, st.ShownVars)
		}
		seen[st.Label] = true
		if st.ShownVars["V"] != "Bearer [redacted]" || !strings.HasSuffix(st.Vars["V"], canary) {
			t.Errorf("step %q: shown %q, sent %q: want the token redacted where shown only", st.Label, st.ShownVars["V"], st.Vars["V"])
		}
	}
	want := "concurrency=4,T=[redacted],U=[redacted]#1 concurrency=4,T=[redacted],U=[redacted]#2 concurrency=4,T=[redacted],U=[redacted] " +
		"concurrency=4,T=x,U=[redacted]#1 concurrency=4,T=x,U=[redacted]#2 concurrency=4,T=x,U=[redacted]"
	if got := strings.Join(labels, " "); got != want {
		t.Errorf("labels\n%s\nwant\n%s", got, want)
	}
}
