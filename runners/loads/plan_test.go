package loads_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/plan"
)

// basePlan is a valid group with two loads; each case edits it.
const basePlan = `version: 1
groups:
  - id: g
    duration: 1s
    loads:
      - name: a
        runner: http
        http: {requests: [{url: "http://127.0.0.1:1/a"}]}
        load: {concurrency: 1}
      - name: b
        runner: sse
        sse: {url: "http://127.0.0.1:1/events", subscribers: 2}
`

// TestPlanErrors: every misuse of loads: is a plan error naming the
// file, line and field.
func TestPlanErrors(t *testing.T) {
	cases := []struct{ name, from, to, want string }{
		{"runner beside loads", "    duration: 1s\n", "    duration: 1s\n    runner: http\n",
			"test.yaml:5:13: groups[0].runner: a group with loads: names the runner of each load; leave runner: out"},
		{"load beside loads", "    duration: 1s\n", "    duration: 1s\n    load: {concurrency: 2}\n",
			"test.yaml:5:11: groups[0].load: a group with loads: gives each load its own load:"},
		{"unknown runner", "runner: sse", "runner: ssse",
			`test.yaml:10:9: group g: loads[1].runner: runner "ssse" cannot run as one of several loads (a load may use: grpc, http, sse)`},
		{"runner that ends the target", "runner: sse", "runner: shutdown",
			`test.yaml:10:9: group g: loads[1].runner: runner "shutdown" cannot run as one of several loads`},
		{"duplicate names", "name: b", "name: a", `test.yaml:10:9: group g: loads[1].name: load "a" given twice`},
		{"bad name", "name: b", "name: b.c", `test.yaml:10:9: group g: loads[1].name: "b.c": want 1 to 32 letters`},
		{"missing section", "        http: {requests: [{url: \"http://127.0.0.1:1/a\"}]}\n", "",
			"test.yaml:6:9: group g: loads.a: http: missing (required for runner http)"},
		{"group section", "    duration: 1s\n", "    duration: 1s\n    http: {requests: [{url: \"http://127.0.0.1:1/a\"}]}\n",
			"test.yaml:5:11: group g: http: runner loads does not read a http: section (it reads: none of its own)"},
		{"load shape", "load: {concurrency: 1}", "load: {rate: 10}",
			"test.yaml:6:9: group g: loads.a: load.max_in_flight: an open loop needs max_in_flight"},
		{"sweep of the group", "    duration: 1s\n", "    duration: 1s\n    sweep: {rate: [1, 2]}\n",
			"test.yaml:3:5: group g: sweep.rate: a group with loads: sweeps a key of one load: write loads.NAME.KEY (loads: a, b)"},
		{"sweep of no load", "    duration: 1s\n", "    duration: 1s\n    sweep: {loads.c.rate: [1, 2]}\n",
			"group g: sweep.loads.c.rate: a group with loads: sweeps a key of one load"},
		{"sweep a load cannot read", "    duration: 1s\n", "    duration: 1s\n    sweep: {loads.a.subscribers: [1, 2]}\n",
			`group g: loads.a: sweep.subscribers: runner http reads no parameter "subscribers"`},
		{"iterations of a driver", "subscribers: 2}\n", "subscribers: 2}\n        iterations: 5\n",
			"group g: loads.b: iterations: runner sse drives its own load"},
		{"iterations of the group", "    duration: 1s\n", "    iterations: 5\n",
			"group g: iterations: a group with loads: counts each load's own operations"},
		{"no loads", "    loads:\n", "    loads: []\n    x:\n",
			"groups[0].loads: want 1 to 16 loads, got 0"},
		{"too many loads", "    loads:\n", "    loads:\n" + strings.Repeat("      - {name: x, runner: sse, sse: {url: \"http://127.0.0.1:1/\"}}\n", 16),
			"test.yaml:6:7: groups[0].loads: want 1 to 16 loads, got 18"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(basePlan, c.from, c.to, 1)
			if src == basePlan {
				t.Fatalf("case does not change the plan")
			}
			_, err := plan.ParsePlan("test.yaml", []byte(src), func(string) (string, bool) { return "", false }, testRegistry)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// TestPlanWithLoads: a valid plan's loads are groups of their own for
// their kinds, on the group's clock, with the sweep values that address
// them.
func TestPlanWithLoads(t *testing.T) {
	src := strings.Replace(basePlan, "    duration: 1s\n", "    duration: 1s\n    warmup: 200ms\n    sweep: {loads.b.subscribers: [1, 3]}\n", 1)
	p, err := plan.ParsePlan("test.yaml", []byte(src), func(string) (string, bool) { return "", false }, testRegistry)
	if err != nil {
		t.Fatal(err)
	}
	g := p.Groups[0]
	if g.Runner != plan.LoadsRunner || len(g.Loads) != 2 {
		t.Fatalf("runner %q, %d loads", g.Runner, len(g.Loads))
	}
	b := g.Loads[1].Group
	if b.Runner != "sse" || b.Duration.D() != g.Duration.D() || b.Warmup.D() != g.Warmup.D() || b.Sweep["subscribers"] == nil {
		t.Errorf("load b as a group: %+v", b)
	}
	steps := plan.Steps(g, 0)
	_, params := g.Loads[1].InStep(steps[1].Params)
	if len(steps) != 2 || fmt.Sprint(params) != "map[subscribers:3]" {
		t.Errorf("steps %+v, load b's params in the second %v", steps, params)
	}
}
