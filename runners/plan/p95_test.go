package plan

import (
	"strings"
	"testing"
	"time"
)

// TestThresholdP95Key: p95 is a fixed threshold key beside p50 … p999,
// the percentile k6 users reach for first; p96 is still not one, and the
// error lists p95 among the keys it knows.
func TestThresholdP95Key(t *testing.T) {
	src := strings.Replace(goodPlan, "    thresholds: {p99: 50ms, error_rate: 0}\n", "    thresholds: {p95: 20ms, p99: 50ms}\n", 1)
	p, err := ParsePlan("plan.yaml", []byte(src), env(nil), testSchema{})
	if err != nil {
		t.Fatal(err)
	}
	if th := p.Groups[0].Thresholds; th.P95 == nil || th.P95.D() != 20*time.Millisecond || th.P99 == nil {
		t.Fatalf("thresholds %+v, want p95 20ms and p99", th)
	}
	bad := strings.Replace(goodPlan, "    thresholds: {p99: 50ms, error_rate: 0}\n", "    thresholds: {p96: 20ms}\n", 1)
	_, err = ParsePlan("plan.yaml", []byte(bad), env(nil), testSchema{})
	if err == nil || !strings.Contains(err.Error(), "thresholds.p96: unknown key") || !strings.Contains(err.Error(), "p90, p95, p99") {
		t.Errorf("p96: %v, want an unknown key listing p95", err)
	}
}
