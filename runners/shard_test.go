package runners

import "testing"

// TestShardSplitsAddUpWithUniqueGlobalIDs: for every count and number of
// shards, the shares add up to the count, differ by at most one, and the
// shards' global ids are exactly 0..n-1, each once.
func TestShardSplitsAddUpWithUniqueGlobalIDs(t *testing.T) {
	for shards := 1; shards <= 7; shards++ {
		for n := int64(shards); n <= 40; n++ {
			seen := map[int64]int{}
			var total, lo, hi int64 = 0, n, 0
			for i := range shards {
				sh := Shard{Index: i, Count: shards}
				k := sh.Split(n)
				total += k
				lo, hi = min(lo, k), max(hi, k)
				for j := range k {
					seen[sh.Global(j)]++
				}
			}
			if total != n || hi-lo > 1 {
				t.Fatalf("%d over %d shards: shares add to %d, spread %d..%d", n, shards, total, lo, hi)
			}
			for id := range n {
				if seen[id] != 1 {
					t.Fatalf("%d over %d shards: global id %d taken %d times", n, shards, id, seen[id])
				}
			}
			if len(seen) != int(n) {
				t.Fatalf("%d over %d shards: %d ids", n, shards, len(seen))
			}
		}
	}
}

// TestShardLocalBeforeCountsItsGlobalIndexes checks LocalBefore against a
// count by hand, and that the zero Shard is the identity.
func TestShardLocalBeforeCountsItsGlobalIndexes(t *testing.T) {
	for shards := 1; shards <= 5; shards++ {
		for i := range shards {
			sh := Shard{Index: i, Count: shards}
			for g := int64(-1); g < 30; g++ {
				var want int64
				for k := int64(0); sh.Global(k) <= g; k++ {
					want++
				}
				if got := sh.LocalBefore(g); got != want {
					t.Fatalf("shard %d/%d: LocalBefore(%d) = %d, want %d", i, shards, g, got, want)
				}
			}
		}
	}
	var zero Shard
	if zero.Split(9) != 9 || zero.Global(4) != 4 || zero.LocalBefore(4) != 5 {
		t.Fatal("the zero Shard must run everything")
	}
}
