package plan

import (
	"strings"
	"testing"
)

// checksPlan is goodPlan's group with thresholds.checks entries (from line 19).
func checksPlan(entries string) string {
	return strings.Replace(goodPlan, "    thresholds: {p99: 50ms, error_rate: 0}\n",
		"    thresholds:\n      p99: 50ms\n      checks:\n"+entries, 1)
}

func TestThresholdChecksDecode(t *testing.T) {
	p, err := ParsePlan("plan.yaml", []byte(checksPlan(`        - {figure: p95, "<=": 20ms}
        - {figure: p99.9, "<": 100}
        - {figure: target.fds_per_unit, "<=": 1.5}
        - {figure: counters.reconnects, ">=": 200}
        - {figure: errors, between: [0, 3]}
        - {figure: status.429, "==": 5000}
        - {figure: probes.backlog.max, "<=": 0}
`)), env(nil), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	th := p.Groups[0].Thresholds
	if th.P99 == nil || len(th.Checks) != 7 || th.Checks[0].Pos.Line != 19 || th.Checks[4].Pos.Line != 23 {
		t.Fatalf("thresholds %+v", th)
	}
	want := []string{"<= 20ms", "< 100ms", "<= 1.5", ">= 200", "between 0 and 3", "== 5000", "<= 0"}
	for i, c := range th.Checks {
		cc, err := c.Compile()
		if err != nil || cc.Name() != c.Figure+" "+want[i] {
			t.Errorf("checks[%d] %s: %q, %v; want %q", i, c.Figure, cc.Name(), err, want[i])
		}
	}
}

func TestThresholdChecksErrors(t *testing.T) {
	for _, c := range []struct{ entry, want string }{
		{`{figure: p95x, "<=": 1}`, `plan.yaml:19:11: group G1: thresholds.checks[0].figure: unknown figure "p95x" (nearest: p95, p50, p90; figures: pNN (any percentile: p50, p95, p99.9, …), max, mean,`},
		{`{figure: target.leaks, "<=": 1}`, `plan.yaml:19:11: group G1: thresholds.checks[0].figure: unknown figure "target.leaks" (target.X, X: rss_mb.start`},
		{`{figure: p95, "=<": 20ms}`, `plan.yaml:19:25: groups[0].thresholds.checks[0].=<: unknown key (known: !=, <, <=, ==, >, >=, between, figure, steps)`},
		{`{figure: p95}`, `plan.yaml:19:11: group G1: thresholds.checks[0]: no operator: want one of ==, !=, <, <=, >, >=, between`},
		{`{figure: errors, between: [1]}`, `plan.yaml:19:11: group G1: thresholds.checks[0]: between wants two values [low, high], got 1`},
		{`{figure: errors, between: [3, 1]}`, `thresholds.checks[0].between: between [3, 1]: the low end is above the high end`},
		{`{figure: errors, between: 3}`, `plan.yaml:19:37: groups[0].thresholds.checks[0].between: want a list, got a scalar "3"`},
		{`{figure: p95, "<=": 20 ms}`, `plan.yaml:19:11: group G1: thresholds.checks[0].<=: bad duration "20 ms": want a duration such as 250ms, 5s or 2m, or a number of milliseconds`},
		{`{figure: errors, "<=": 2ms}`, `group G1: thresholds.checks[0].<=: want a number, got "2ms"`},
		{`{figure: p95, "<": 1ms, ">": 0}`, `thresholds.checks[0]: one operator per entry, got < and >`},
		{`{"<": 1ms}`, `plan.yaml:19:11: groups[0].thresholds.checks[0].figure: missing (required)`},
	} {
		_, err := ParsePlan("plan.yaml", []byte(checksPlan("        - "+c.entry+"\n")), env(nil), testSchema{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %q", c.entry, err, c.want)
		}
	}
}
