package runners

import (
	"math/rand/v2"
	"testing"

	"github.com/benchtui/benchtui/runners/plan"
)

// TestPickWeightedKeepsTheShares: weights 3, 1 and 6 are drawn in those
// shares (100,000 draws, within 1 %), and a mix of one is always it.
func TestPickWeightedKeepsTheShares(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	got := make([]int, 3)
	for range 100_000 {
		got[PickWeighted(rnd, []int{3, 4, 10})]++
	}
	for i, want := range []float64{0.3, 0.1, 0.6} {
		if share := float64(got[i]) / 100_000; share < want-0.01 || share > want+0.01 {
			t.Errorf("entry %d drawn %.3f of the time, want %.1f", i, share, want)
		}
	}
	if PickWeighted(rnd, []int{5}) != 0 {
		t.Error("a mix of one drew another")
	}
}

// TestUnitsByKey: a sweep value wins over the section's subscribers,
// which win over the load's concurrency; workers are max_in_flight in
// an open loop.
func TestUnitsByKey(t *testing.T) {
	closed, open := plan.Load{Concurrency: 4}, plan.Load{Rate: 10, MaxInFlight: 7}
	for _, c := range []struct {
		params map[string]float64
		n      int
		want   int
		key    string
	}{
		{map[string]float64{"subscribers": 9}, 5, 9, "s.subscribers"},
		{nil, 5, 5, "s.subscribers"},
		{nil, 0, 4, "load.concurrency"},
	} {
		if n, key := SubscriberUnits(c.params, c.n, "s.subscribers", closed); n != c.want || key != c.key {
			t.Errorf("%v, %d: got %d %s, want %d %s", c.params, c.n, n, key, c.want, c.key)
		}
	}
	if n, key := WorkerUnits(open); n != 7 || key != "load.max_in_flight" {
		t.Errorf("open loop: %d %s", n, key)
	}
	if n, key := WorkerUnits(closed); n != 4 || key != "load.concurrency" {
		t.Errorf("closed loop: %d %s", n, key)
	}
}
