package engine

import (
	"testing"

	"github.com/benchtui/benchtui/artifacts"
)

// TestBlocksKeepOnlyTailsTheyCanMeasure: a block of 500 operations gives a
// p90 sample but no p99 or p999; one of 20,000 gives all three.
func TestBlocksKeepOnlyTailsTheyCanMeasure(t *testing.T) {
	b := newBlocks(DefaultBlock)
	for _, n := range []int64{500, 20_000} {
		h := artifacts.NewHistogram()
		for i := range n {
			h.RecordValue(1000 + i%100)
		}
		b.add(h, counts{requests: n}, 1)
	}
	s := b.samples()
	for key, want := range map[string]int{artifacts.SampleRPS: 2, artifacts.SampleP50: 2, artifacts.SampleP90: 2,
		artifacts.SampleP99: 1, artifacts.SampleP999: 1, artifacts.SampleMax: 2} {
		if got := s.N(key); got != want {
			t.Errorf("%s: %d samples, want %d", key, got, want)
		}
	}
}
