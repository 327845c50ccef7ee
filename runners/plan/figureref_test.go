package plan

import (
	"strings"
	"testing"
)

// refPlan is three groups of three steps; the second's checks (from line
// 17) may refer to the first.
func refPlan(entries string) string {
	group := `    runner: sleep
    sleep: {delay: 1ms}
    load: {concurrency: 1}
    duration: 1s
    sweep: {concurrency: [1, 2, 4]}
`
	return "version: 1\ngroups:\n  - id: arm-a\n" + group + "  - id: arm-b\n" + group +
		"    thresholds:\n      checks:\n" + entries + "  - id: later\n" + group
}

// Each form of a limit that is another figure decodes, and its check's
// name states the relation.
func TestRelativeChecksDecode(t *testing.T) {
	p, err := ParsePlan("plan.yaml", []byte(refPlan(`        - {figure: ok_rps, ">=": {figure: offered_rps, times: 0.95}}
        - {figure: rps, ">=": {figure: rps, step: previous}}
        - {figure: rps, ">=": {figure: rps, step: 1, times: 1.5}, steps: [3]}
        - {figure: p99, "<=": {figure: p99, group: arm-a, times: 1.2}}
        - {figure: p99, "<=": {figure: p50, group: arm-a, step: 2, plus: 5ms}}
        - {figure: rps, between: [{figure: rps, group: arm-a, times: 0.9}, {figure: rps, group: arm-a, times: 1.1}]}
        - {figure: errors, "<=": 3}
`)), env(nil), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ok_rps >= 0.95 × offered_rps",
		"rps >= previous step's rps",
		"rps >= 1.5 × step 1's rps",
		"p99 <= 1.2 × arm-a p99",
		"p99 <= arm-a step 2's p50 + 5ms",
		"rps between 0.9 × arm-a rps and 1.1 × arm-a rps",
		"errors <= 3",
	}
	judges := [][]bool{{true, true, true}, {false, true, true}, {false, false, true}, {true, true, true}, {true, true, true}, {true, true, true}, {true, true, true}}
	checks := p.Groups[1].Thresholds.Checks
	if len(checks) != len(want) || checks[3].Pos.Line != 20 {
		t.Fatalf("checks %+v", checks)
	}
	for i, c := range checks {
		cc, err := c.Compile()
		if err != nil || cc.Name() != want[i] {
			t.Errorf("checks[%d]: %q, %v; want %q", i, cc.Name(), err, want[i])
		}
		for n := 1; n <= 3; n++ {
			if cc.Judges(n) != judges[i][n-1] {
				t.Errorf("checks[%d] %q judges step %d: %v", i, want[i], n, cc.Judges(n))
			}
		}
	}
	if got := p.Groups[1].Thresholds.ReferredGroups(); len(got) != 1 || got[0] != "arm-a" {
		t.Errorf("referred groups %v", got)
	}
}

// A wrong reference is a plan error at its line naming the field; what
// the plan can tell (a group not in it, or after the check's own, a step
// that does not exist) is one too.
func TestRelativeChecksErrors(t *testing.T) {
	for _, c := range []struct{ entry, want string }{
		{`{figure: p99, "<=": {figure: p99, group: arm-c}}`, `plan.yaml:17:31: group arm-b: thresholds.checks[0].<=.group: no group "arm-c" in the plan (groups: arm-a, arm-b, later)`},
		{`{figure: p99, "<=": {figure: p99, group: later}}`, `plan.yaml:17:31: group arm-b: thresholds.checks[0].<=.group: group later comes after arm-b: a check may refer only to groups before its own`},
		{`{figure: p99, "<=": {figure: p99, group: arm-b}}`, `thresholds.checks[0].<=.group: "arm-b" is the check's own group`},
		{`{figure: p99, "<=": {figure: p99, step: 4}}`, `plan.yaml:17:31: group arm-b: thresholds.checks[0].<=.step: step 4: the group has 3 step(s)`},
		{`{figure: p99, "<=": {figure: p99, group: arm-a, step: 4}}`, `thresholds.checks[0].<=.step: step 1 of arm-b would compare with step 4 of arm-a, which has 3 step(s)`},
		{`{figure: p99, "<=": {figure: p99, step: 3}}`, `thresholds.checks[0].<=.step: no step of the group comes after step 3 to compare with it (the group has 3 step(s))`},
		{`{figure: p99, "<=": {figure: p99, step: previous}, steps: [1]}`, `thresholds.checks[0].<=.step: no step of the group has a previous one to compare with (the group has 3 step(s) and the check judges steps [1])`},
		{`{figure: p99, "<=": 5ms, steps: [7]}`, `plan.yaml:17:11: group arm-b: thresholds.checks[0].steps[0]: step 7: the group has 3 step(s)`},
		{`{figure: p99, "<=": 5ms, steps: [0]}`, `thresholds.checks[0].steps[0]: want a step's number from 1, got 0`},
		{`{figure: p99, "<=": {figure: p99, step: last}}`, `plan.yaml:17:31: group arm-b: thresholds.checks[0].<=.step: want previous or a step's number from 1, got "last"`},
		{`{figure: p99, "<=": {figure: p99x, step: 1}}`, `thresholds.checks[0].<=.figure: unknown figure "p99x"`},
		{`{figure: p99, "<=": {figure: rps, step: 1}}`, `thresholds.checks[0].<=.figure: p99 and rps are not alike: one is a time (ms), the other is not`},
		{`{figure: p99, "<=": {figure: p99}}`, `thresholds.checks[0].<=: compares p99 with itself: name another figure, or give step or group`},
		{`{figure: p99, "<=": {figure: p99, step: 1, times: 0}}`, `thresholds.checks[0].<=.times: want a factor above 0, got 0`},
		{`{figure: p99, "<=": {figure: p99, step: 1, plus: 5 ms}}`, `thresholds.checks[0].<=.plus: bad duration "5 ms"`},
		{`{figure: rps, "<=": {figure: rps, step: 1, plus: 5ms}}`, `thresholds.checks[0].<=.plus: want a number, got "5ms"`},
		{`{figure: p99, "<=": {figure: p99, group: arm-a, stp: 1}}`, `plan.yaml:17:59: groups[1].thresholds.checks[0].<=.stp: unknown key (known: figure, group, plus, step, times)`},
		{`{figure: p99, "<=": {group: arm-a}}`, `plan.yaml:17:31: groups[1].thresholds.checks[0].<=.figure: missing (required)`},
		{`{figure: p99, "<=": [1]}`, `groups[1].thresholds.checks[0].<=: want a number, a duration or another figure ({figure: NAME, times: …}), got a list`},
		{`{figure: rps, between: [{figure: rps, group: arm-a}, {figure: rpz, group: arm-a}]}`, `thresholds.checks[0].between[1].figure: unknown figure "rpz"`},
		{`{figure: rps, between: [5, 1x]}`, `thresholds.checks[0].between: want a number, got "1x"`},
	} {
		_, err := ParsePlan("plan.yaml", []byte(refPlan("        - "+c.entry+"\n")), env(nil), testSchema{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %q", c.entry, err, c.want)
		}
	}
}
