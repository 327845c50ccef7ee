package livemetrics

import (
	"math"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
)

// TestBucketsOfKnownLatencies records latencies whose buckets are known
// and wants each cumulative count, the count and the sum: below 2.048 ms
// exact to the µs (100 µs is in le=0.0001, 101 µs is not), above it each
// latency at most one sub-bucket (0.1 %) from its bucket, never below a
// bound it exceeds; the 60 s ceiling only in +Inf.
func TestBucketsOfKnownLatencies(t *testing.T) {
	h := artifacts.NewHistogram()
	for _, v := range []struct{ us, n int64 }{{1, 2}, {100, 3}, {101, 1}, {999, 1}, {1_000, 1}, {1_001, 1},
		{20_000, 2}, {40_000_000, 1}, {artifacts.HistMaxUS, 1}} {
		if err := h.RecordValues(v.us, v.n); err != nil {
			t.Fatal(err)
		}
	}
	b := bucketsOf(h)
	want := map[float64]uint64{0.0001: 5, 0.00025: 6, 0.0005: 6, 0.001: 8, 0.0025: 9, 0.005: 9, 0.01: 9, 0.025: 11,
		0.05: 11, 0.1: 11, 0.25: 11, 0.5: 11, 1: 11, 2.5: 11, 5: 11, 10: 11, 30: 11}
	if len(b.cumulative) != len(want) {
		t.Errorf("%d buckets, want %d", len(b.cumulative), len(want))
	}
	for le, n := range want {
		if b.cumulative[le] != n {
			t.Errorf("le=%g: %d, want %d", le, b.cumulative[le], n)
		}
	}
	if b.count != 13 || b.count != uint64(h.TotalCount()) {
		t.Errorf("count %d, want 13", b.count)
	}
	if mean := h.Mean() * float64(h.TotalCount()) / 1e6; math.Abs(b.sumSeconds-mean) > 1e-9*mean {
		t.Errorf("sum %.9f s, want HdrHistogram's mean × count %.9f s", b.sumSeconds, mean)
	}
}

// TestBucketsOfAnEmptyHistogram wants every bucket at 0, not missing.
func TestBucketsOfAnEmptyHistogram(t *testing.T) {
	b := bucketsOf(artifacts.NewHistogram())
	if b.count != 0 || b.sumSeconds != 0 || len(b.cumulative) != len(latencyBoundsUS) {
		t.Errorf("%+v", b)
	}
}
