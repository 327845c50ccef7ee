package plan

import (
	"strings"
	"testing"
)

// A condition (when:) and windows (windows:) are checked as a threshold
// check is, each problem at its line and naming its field; good ones
// decode.
func TestWhenAndWindowsPlanErrors(t *testing.T) {
	const kill = "      - {at: 1s, name: kill, exec: [\"true\"]}\n"
	cases := []struct{ actions, windows, want string }{
		{`      - {when: {figure: requests, ">=": 2000}, exec: ["true"]}` + "\n", "", ""},
		{`      - {when: {figure: by_name.embed.requests, ">=": 2000}, exec: ["true"]}` + "\n", "", ""},
		{`      - {when: {figure: probes.depth.last, "<": 5}, exec: ["true"]}` + "\n", "", ""},
		{`      - {when: {figure: target.rss_mb.end, ">": 300}, exec: ["true"]}` + "\n", "", ""},
		{`      - {when: {figure: counters.reconnects, ">=": 1}, exec: ["true"]}` + "\n", "", ""},
		{`      - {when: {figure: requets, ">=": 2000}, exec: ["true"]}` + "\n", "", `plan.yaml:20:9: group G1: actions[0].when.figure: unknown figure "requets"`},
		{`      - {when: {figure: requests, "=>": 2000}, exec: ["true"]}` + "\n", "", `actions[0].when.=>: unknown key`},
		{`      - {when: {figure: requests}, exec: ["true"]}` + "\n", "", `actions[0].when: no operator`},
		{`      - {when: {figure: requests, ">=": lots}, exec: ["true"]}` + "\n", "", `actions[0].when.>=: want a number, got "lots"`},
		{`      - {when: {figure: p99.9, ">=": 5ms}, exec: ["true"]}` + "\n", "", `actions[0].when.figure: p99.9: while the step runs only p50, p90, p99 and max are kept`},
		{`      - {when: {figure: target.rss_slope_mb_per_min, ">=": 5}, exec: ["true"]}` + "\n", "", `actions[0].when.figure: target.rss_slope_mb_per_min is known only at the step's end`},
		{`      - {at: 1s, when: {figure: requests, ">=": 5}, exec: ["true"]}` + "\n", "", `actions[0].at: give exactly one of at`},
		{kill, `{name: after_kill, after: kill, for: 5s}`, ""},
		{kill, `{name: rot, during: kill}`, ""},
		{kill, `{name: rot, during: nope}`, `plan.yaml:22:9: group G1: windows[0].during: no action named "nope" in the group's actions (named: [kill])`},
		{kill, `{name: rot, after: kill}`, `windows[0].for: after: kill wants for: a duration above 0`},
		{kill, `{name: rot, during: kill, for: 1s}`, `windows[0].for: for goes with after`},
		{kill, `{name: rot, during: kill, after: kill, for: 1s}`, `windows[0].during: give exactly one of during`},
		{kill, `{name: "r.o", during: kill}`, `windows[0].name: "r.o": want 1 to 64 letters`},
		{kill + kill, `{name: rot, during: kill}`, `windows[0].during: 2 actions are named "kill"`},
		{kill, "{name: a, during: kill}\n      - {name: a, during: kill}", `windows[1].name: window "a" given twice`},
	}
	for _, c := range cases {
		src := actionsPlan(c.actions)
		if c.windows != "" {
			src += "    windows:\n      - " + c.windows + "\n"
		}
		_, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %s: %v", c.actions, c.windows, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %s: got %v, want %q", c.actions, c.windows, err, c.want)
		}
	}
}
