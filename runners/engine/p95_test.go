package engine

import (
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// TestThresholdP95: the fixed p95 key is judged on the step's histogram
// (1 … 100 ms: p95 is 95 ms) between p90 and p99, as a check named like
// the others; a step without a histogram fails it, saying why.
func TestThresholdP95(t *testing.T) {
	h := artifacts.NewHistogram()
	for us := int64(1000); us <= 100_000; us += 1000 {
		_ = h.RecordValue(us)
	}
	enc, _ := artifacts.EncodeHistogram(h)
	s := &artifacts.Step{Requests: 100, Histogram: enc, LatencyMS: artifacts.PercentilesOf(h)}
	ms := func(n int) *plan.Duration { return &plan.Duration{Duration: time.Duration(n) * time.Millisecond} }
	th := plan.Thresholds{P90: ms(200), P95: ms(90), P99: ms(200)}
	got := thresholdChecks(th, s, CheckContext{})
	p95 := float64(h.ValueAtQuantile(95)) / 1000
	if len(got) != 3 || got[1].Name != "p95 <= 90ms" || got[1].OK || got[1].Value != p95 || p95 < 94 || p95 > 96 {
		t.Fatalf("checks %+v, want p95 <= 90ms failed with 95 ms, between p90 and p99", got)
	}
	th.P95 = ms(96)
	if c := thresholdChecks(th, s, CheckContext{})[1]; !c.OK {
		t.Errorf("p95 <= 96ms: %+v, want ok", c)
	}
	bare := &artifacts.Step{Requests: 100, LatencyMS: s.LatencyMS}
	if c := thresholdChecks(plan.Thresholds{P95: ms(96)}, bare, CheckContext{})[0]; c.OK || c.Note == "" {
		t.Errorf("p95 without a histogram: %+v, want a failed check saying why", c)
	}
}
