package plan

import (
	"strings"
	"testing"
)

// TestParseReady: each readiness grammar parses to its kind, exit only
// where allowed, and bad syntax is an error.
func TestParseReady(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in     string
		exitOK bool
		want   ReadyKind
		bad    bool
	}{
		{"", false, ReadyNone, false},
		{"exit", true, ReadyExit, false},
		{"exit", false, 0, true},
		{"tcp://127.0.0.1:1", false, ReadyTCP, false},
		{"https://127.0.0.1:1/ready", true, ReadyHTTP, false},
		{"stdout:/^up$/", false, ReadyStdout, false},
		{"stdout:(", false, 0, true},
		{"udp://x", true, 0, true},
	}
	for _, c := range cases {
		r, err := ParseReady(c.in, c.exitOK)
		if (err != nil) != c.bad || err == nil && r.Kind != c.want {
			t.Errorf("ParseReady(%q, %v) = %+v, %v; want kind %d, error %v", c.in, c.exitOK, r, err, c.want, c.bad)
		}
	}
	if r, _ := ParseReady("stdout:/^up$/", false); !r.Pattern.MatchString("up") {
		t.Errorf("pattern %v does not match its line", r.Pattern)
	}
}

// TestTargetSyntaxOnly: a target's ready value is checked for its syntax
// at its target (file:line:col and key), and a cgroup folder only
// for being given: its files are read when the target is attached
// (runners/watch) and by `benchtui doctor`, not by the plan.
func TestTargetSyntaxOnly(t *testing.T) {
	for _, c := range []struct{ target, want string }{
		{"    ready: tcp://nohost", `plan.yaml:4:5: targets.api.ready: parsing ready "tcp://nohost": address nohost: missing port in address`},
		{"    ready: stdout:/(/", `plan.yaml:4:5: targets.api.ready: parsing ready "stdout:/(/"`},
		{"    ready: exit", `plan.yaml:4:5: targets.api.ready: parsing ready "exit": want http://`},
		{"    ready: tcp://127.0.0.1:1", ""},
	} {
		src := strings.Replace(serverPlan, "%s", c.target, 1)
		src = strings.Replace(src, "%s", "", 1)
		_, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s:\n got %v\nwant %q", c.target, err, c.want)
		}
	}
	plain := t.TempDir() // a folder without a cgroup's files
	src := strings.Replace(serverPlan, "    command: [./api]\n%s", "    cgroup: "+plain, 1)
	src = strings.Replace(src, "%s", "", 1)
	if _, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{}); err != nil {
		t.Errorf("a cgroup folder is checked when attached, not by the plan: %v", err)
	}
}
