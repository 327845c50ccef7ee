package tmpl

import (
	"sync"
	"testing"
)

// TestSeqIsSharedAndStriped: the workers drawing from one Seq get 1 to N
// once each, whatever their interleaving; the shards of a run stripe it,
// so together they number 1 to N once each too.
func TestSeqIsSharedAndStriped(t *testing.T) {
	seen := map[uint64]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	shards := []*Seq{NewSeq(), NewSeq(), NewSeq()}
	for i, s := range shards {
		s.Stripe(i, len(shards))
		for range 4 {
			wg.Go(func() {
				for range 100 {
					n := s.Next()
					mu.Lock()
					seen[n]++
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	for n := uint64(1); n <= 1200; n++ {
		if seen[n] != 1 {
			t.Fatalf("number %d drawn %d times; want 1 to 1200 once each", n, seen[n])
		}
	}
	if one := NewSeq(); one.Next() != 1 || one.Next() != 2 {
		t.Error("a run on one machine counts 1, 2, …")
	}
}
