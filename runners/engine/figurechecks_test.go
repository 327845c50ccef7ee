package engine

import (
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
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
