package engine

import (
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	yaml "go.yaml.in/yaml/v3"
)

func operand(s string) *plan.Operand { return &plan.Operand{Value: s} }

// Each threshold check is a check named with its figure, operator and
// limit, valued with the figure; a figure the step lacks fails, saying so.
func TestFigureChecks(t *testing.T) {
	h := artifacts.NewHistogram()
	for us := int64(1000); us <= 100_000; us += 1000 { // 1 ms … 100 ms
		_ = h.RecordValue(us)
	}
	enc, _ := artifacts.EncodeHistogram(h)
	s := &artifacts.Step{Requests: 100, Errors: 2, Histogram: enc, LatencyMS: artifacts.PercentilesOf(h),
		Target: &artifacts.TargetStats{FDsPerUnit: 1.41}}
	p99 := plan.Duration{Duration: 150e6}
	th := plan.Thresholds{P99: &p99, Checks: []plan.FigureCheck{
		{Figure: "p95", ComparisonOf: plan.ComparisonOf[plan.Operand]{LE: operand("20ms")}},
		{Figure: "p99.9", ComparisonOf: plan.ComparisonOf[plan.Operand]{LT: operand("101")}},
		{Figure: "target.fds_per_unit", ComparisonOf: plan.ComparisonOf[plan.Operand]{LE: operand("1.5")}},
		{Figure: "errors", ComparisonOf: plan.ComparisonOf[plan.Operand]{Between: []plan.Operand{{Value: "0"}, {Value: "3"}}}},
		{Figure: "counters.reconnects", ComparisonOf: plan.ComparisonOf[plan.Operand]{GE: operand("0")}},
	}}
	got := thresholdChecks(th, s, CheckContext{})
	want := []struct {
		name  string
		ok    bool
		value float64
		note  string
	}{
		{"p99 <= 150ms", true, s.LatencyMS.P99, ""},
		{"p95 <= 20ms", false, float64(h.ValueAtQuantile(95)) / 1000, ""},
		{"p99.9 < 101ms", true, float64(h.ValueAtQuantile(99.9)) / 1000, ""},
		{"target.fds_per_unit <= 1.5", true, 1.41, ""},
		{"errors between 0 and 3", true, 2, ""},
		{"counters.reconnects >= 0", false, 0, `counters has no "reconnects" in this step`},
	}
	if len(got) != len(want) {
		t.Fatalf("checks %+v", got)
	}
	for i, w := range want {
		c := got[i]
		if c.Name != w.name || c.OK != w.ok || c.Value != w.value || !strings.Contains(c.Note, w.note) {
			t.Errorf("checks[%d] = %+v, want %+v", i, c, w)
		}
	}
	if v := artifacts.CheckValue(got[1]); !strings.HasSuffix(v, " ms") {
		t.Errorf("p95's value shows as %q, want milliseconds", v)
	}
	if line := artifacts.FailedLine(got[5]); !strings.Contains(line, "counters.reconnects >= 0: counters has no") {
		t.Errorf("failed line %q", line)
	}
}

// A counter the runner kind declares is written at 0 when nothing was
// counted, so `== 0` on it passes; a misspelt counter fails, naming the
// nearest the step has.
func TestDeclaredCounterReadsZero(t *testing.T) {
	k, _ := testRegistry.Kind("sleep")
	k.Counters = runners.FixedCounters("streams_cut", "reconnects")
	reg := runners.MustRegistry(k)
	a, _ := runPlan(t, reg, `version: 1
groups:
  - id: g
    runner: sleep
    sleep: {delay: 5ms}
    load: {concurrency: 1}
    duration: 200ms
    thresholds:
      checks:
        - {figure: counters.streams_cut, "==": 0}
        - {figure: counters.stream_cut, "==": 0}
`)
	st := a.Steps[0]
	if n, ok := st.Counters["reconnects"]; !ok || n != 0 {
		t.Errorf("counters %v: want reconnects written at 0", st.Counters)
	}
	checks := map[string]artifacts.Check{}
	for _, c := range st.Checks {
		checks[c.Name] = c
	}
	if c := checks["counters.streams_cut == 0"]; !c.OK || c.Value != 0 {
		t.Errorf("streams_cut check %+v, want passed at 0 (checks %+v)", c, st.Checks)
	}
	c := checks["counters.stream_cut == 0"]
	if c.OK || !strings.Contains(c.Note, "nearest: streams_cut;") {
		t.Errorf("misspelt check %+v, want failed naming streams_cut", c)
	}
}

// relChecks decodes checks (YAML list entries) of a one-group plan.
func relChecks(t *testing.T, entries string) []plan.FigureCheck {
	t.Helper()
	var list []any
	if err := yaml.Unmarshal([]byte(entries), &list); err != nil {
		t.Fatal(err)
	}
	th, err := plan.DecodeThresholds("test", map[string]any{"checks": list})
	if err != nil {
		t.Fatal(err)
	}
	return th.Checks
}

// A limit that is another figure is read from the step it names: the
// judged one, an earlier one, or another group's; its check states both
// sides, and one it cannot read fails, saying why.
func TestRelativeFigureChecks(t *testing.T) {
	step := func(rps, p50 float64) artifacts.Step {
		return artifacts.Step{Requests: 10, ThroughputRPS: rps, LatencyMS: artifacts.Percentiles{P50: p50},
			Counters: map[string]int64{"streams": 7}}
	}
	s1, s2, s3 := step(100, 5), step(180, 6), step(260, 9)
	arm := []artifacts.Step{step(250, 4), step(300, 5)}
	groups := func(id string) ([]artifacts.Step, bool) {
		if id == "arm-a" {
			return arm, true
		}
		return nil, false
	}
	checks := relChecks(t, `
- {figure: rps, ">=": {figure: rps, step: previous, times: 1.5}}
- {figure: rps, ">=": {figure: rps, step: 1, times: 2.5}}
- {figure: p50, between: [{figure: p50, group: arm-a, times: 0.5}, {figure: p50, group: arm-a, plus: 1ms}]}
- {figure: requests, "<=": {figure: counters.streams, plus: 3}}
- {figure: rps, "<=": {figure: rps, group: arm-b}}
- {figure: rps, "<=": {figure: counters.nope, step: previous}}
`)
	at := CheckContext{Earlier: []artifacts.Step{s1, s2}, Groups: groups}
	got := figureChecks(checks, &s3, at)
	want := []struct {
		name   string
		ok     bool
		limits []float64
		note   string
	}{
		{"rps >= 1.5 × previous step's rps", false, []float64{270}, ""},
		{"rps >= 2.5 × step 1's rps", true, []float64{250}, ""},
		{"p50 between 0.5 × arm-a p50 and arm-a p50 + 1ms", false, []float64{0}, "group arm-a has no step 3 in this run (it finished 2)"},
		{"requests <= counters.streams + 3", true, []float64{10}, ""},
		{"rps <= arm-b rps", false, nil, "group arm-b has not run in this run"},
		{"rps <= previous step's counters.nope", false, nil, `step 2: counters has no "nope" in this step`},
	}
	if len(got) != len(want) {
		t.Fatalf("checks %+v", got)
	}
	for i, w := range want {
		c := got[i]
		if c.Name != w.name || c.OK != w.ok || !strings.Contains(c.Note, w.note) || (w.note == "" && (len(c.Limits) != len(w.limits) || c.Limits[0] != w.limits[0])) {
			t.Errorf("checks[%d] = %+v, want %+v", i, c, w)
		}
	}
	if line := artifacts.FailedLine(got[0]); line != "rps >= 1.5 × previous step's rps: was 260, limit 270" {
		t.Errorf("failed line %q", line)
	}
	// On step 2 of the same group: the between reads arm-a's step 2, in
	// milliseconds.
	got = figureChecks(checks, &s2, CheckContext{Earlier: []artifacts.Step{s1}, Groups: groups})
	if len(got) != 6 || got[2].Name != "p50 between 0.5 × arm-a p50 and arm-a p50 + 1ms" || !got[2].OK ||
		got[2].Unit != "ms" || len(got[2].Limits) != 2 || got[2].Limits[0] != 2.5 || got[2].Limits[1] != 6 {
		t.Fatalf("step 2's checks %+v", got)
	}
	if line := artifacts.FailedLine(artifacts.Check{Name: got[2].Name, Value: 7, Limits: got[2].Limits, Unit: "ms"}); line != "p50 between 0.5 × arm-a p50 and arm-a p50 + 1ms: was 7 ms, limits 2.5 ms and 6 ms" {
		t.Errorf("failed line %q", line)
	}
	// The first step has no previous one and is step 1: the checks
	// against those are not made.
	if got := figureChecks(checks, &s1, CheckContext{Groups: groups}); len(got) != 3 || got[0].Name != checks[2].Figure+" between 0.5 × arm-a p50 and arm-a p50 + 1ms" {
		t.Errorf("step 1's checks %+v", got)
	}
}
