package plan

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"
)

// actionsPlan is goodPlan's group with an attached target beside api and
// the given actions.
func actionsPlan(actions string) string {
	return attachedPlan("pidfile: /run/db.pid", actions)
}

// attachedPlan is goodPlan's group with the target db, attached by how
// (pid: 1, pidfile: …), beside api and the given actions.
func attachedPlan(how, actions string) string {
	return strings.Replace(goodPlan, "groups:", "  db:\n    "+how+"\ngroups:", 1) + "    actions:\n" + actions
}

// A plan that would signal pid 1, benchtui itself or benchtui's parent
// (a signal action or the shutdown runner) is refused, naming
// the target and why; watching them, or signalling another pid, is not.
func TestSignalToInitOrParentRefused(t *testing.T) {
	signal := "      - {at: 1s, signal: TERM, target: db}\n"
	cases := []struct{ plan, want string }{
		{attachedPlan("pid: 1", signal), `actions[0].signal: target "db": pid 1 is init`},
		{attachedPlan(fmt.Sprintf("pid: %d", os.Getppid()), signal), fmt.Sprintf(`target "db": pid %d is benchtui's own parent`, os.Getppid())},
		{attachedPlan(fmt.Sprintf("pid: %d", os.Getpid()), signal), "is benchtui itself: benchtui refuses to signal it"},
		{strings.Replace(strings.Replace(attachedPlan("pid: 1", "      - {at: 1s, exec: [\"true\"]}\n"), "target: api", "target: db", 1), "runner: sleep", "runner: shutdown", 1),
			`group G1: target: runner shutdown signals target "db", and pid 1 is init`},
		{attachedPlan("pid: 1", "      - {at: 1s, exec: [\"true\"]}\n"), ""},
		{attachedPlan(fmt.Sprintf("pid: %d", os.Getppid()+100000), signal), ""},
	}
	for i, c := range cases {
		_, err := ParsePlan("plan.yaml", []byte(c.plan), env(nil), testSchema{})
		switch {
		case c.want == "" && err != nil && strings.Contains(err.Error(), "refuses"):
			t.Errorf("%d: refused: %v", i, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%d: got %v, want %q", i, err, c.want)
		}
	}
}

func TestActionsDecode(t *testing.T) {
	p, err := ParsePlan("plan.yaml", []byte(actionsPlan(`      - {at: 5s, signal: KILL}
      - {at: 5500ms, restart: true}
      - {every: 4s, exec: ["sh", "-c", "echo rotate >> /tmp/x"], timeout: 5s}
      - {at: 3s, http: {method: POST, url: "http://127.0.0.1:8080/admin/rotate"}}
      - {at: 1s, signal: sigusr1, target: db}
`)), env(nil), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	acts := p.Groups[0].Actions
	if len(acts) != 5 || acts[0].Kind() != ActionSignal || acts[1].Kind() != ActionRestart || acts[2].Kind() != ActionExec || acts[3].Kind() != ActionHTTPK {
		t.Fatalf("actions %+v", acts)
	}
	if acts[0].Pos.Line != 20 || acts[2].TimeoutD().String() != "5s" || acts[0].TimeoutD() != DefaultActionTimeout {
		t.Errorf("pos %v, timeouts %s %s", acts[0].Pos, acts[2].TimeoutD(), acts[0].TimeoutD())
	}
	if got := acts[4].Label(p.Groups[0]); got != "signal SIGUSR1 to db" {
		t.Errorf("label %q", got)
	}
}

// Every problem is reported at its action's line, naming the field.
func TestActionsPlanErrors(t *testing.T) {
	cases := []struct{ action, want string }{
		{`{signal: KILL}`, "plan.yaml:20:9: group G1: actions[0].at: give exactly one of at"},
		{`{at: 1s, every: 2s, signal: KILL}`, "actions[0].at: give exactly one of at"},
		{`{every: 50ms, exec: ["true"]}`, "actions[0].every: 50ms is too often: at least 100ms"},
		{`{at: 1s}`, "actions[0].signal: give exactly one of signal, restart, exec, http, sql (0 are given)"},
		{`{at: 1s, signal: KILL, exec: ["true"]}`, "(2 are given)"},
		{`{at: 1s, signal: STOP}`, `actions[0].signal: unknown signal "STOP" (known: HUP, INT, KILL, TERM, USR1, USR2)`},
		{`{at: 1s, restart: true, target: db}`, `actions[0].restart: target "db" is attached`},
		{`{at: 1s, signal: TERM, target: nope}`, `actions[0].target: no target named "nope"`},
		{`{at: 1s, sql: "UPDATE t SET x = 1"}`, "actions[0].dsn: a sql action needs the dsn"},
		{`{at: 1s, sql: "UPDATE t SET x = 1", dsn: embedded}`, "actions[0].dsn: embedded is the cluster a postgres group starts"},
		{`{at: 1s, http: {url: "ftp://127.0.0.1/x"}}`, "actions[0].http.url: want an http:// or https:// URL"},
		{`{at: 1s, http: {url: "http://u:pw@127.0.0.1/x"}}`, ""},
		{`{at: 1s, exec: ["true"], dsn: "postgres://x"}`, "actions[0].dsn: only a sql action reads a dsn"},
		{`{at: 1s, exec: ["true"], timeout: 11m}`, "actions[0].timeout: 11m0s is longer than 10m0s"},
		{`{at: 1s, exec: ["true"], bogus: 1}`, "actions[0].bogus: unknown key"},
		{`{at: soon, exec: ["true"]}`, `actions[0].at: bad duration "soon"`},
	}
	for _, c := range cases {
		_, err := ParsePlan("plan.yaml", []byte(actionsPlan("      - "+c.action+"\n")), env(nil), testSchema{})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.action, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.action, err, c.want)
		}
	}
	var many strings.Builder
	for range MaxActions + 1 {
		many.WriteString("      - {at: 1s, exec: [\"true\"]}\n")
	}
	_, err := ParsePlan("plan.yaml", []byte(actionsPlan(many.String())), env(nil), testSchema{})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("65 actions: at most %d per group", MaxActions)) {
		t.Errorf("65 actions: %v", err)
	}
}

// An http action's address is held to the same rule as the load's: a
// remote one is warned about, and a password in its URL never shows.
func TestActionsRemoteAndRedacted(t *testing.T) {
	p, err := ParsePlan("plan.yaml", []byte(actionsPlan(`      - {at: 1s, http: {url: "http://admin:hunter22@203.0.113.9/rotate"}}
`)), env(nil), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	none := func(context.Context, string, string) ([]netip.Addr, error) { return nil, nil }
	w := p.RemoteWarnings(none)
	if len(w) != 1 || !strings.Contains(w[0], "actions[0].http.url: 203.0.113.9") {
		t.Errorf("warnings %q", w)
	}
	if s := fmt.Sprint(p.Groups[0].Raw); strings.Contains(s, "hunter22") {
		t.Errorf("the password shows in the group's config: %s", s)
	}
}
