package main

import (
	"slices"
	"testing"

	"github.com/benchtui/benchtui/artifacts/compare"
)

// searchFor runs a bisection over n revisions whose first worse is first
// (n: none is), those in broken skipped, and returns the probes in order
// and where it ended.
func searchFor(n, first int, broken ...int) (probes []int, found int, candidates []int) {
	b := newBisection(n)
	for i := b.next(); i >= 0; i = b.next() {
		if slices.Contains(probes, i) || len(probes) > n {
			panic("probed twice or more than n")
		}
		probes = append(probes, i)
		switch {
		case slices.Contains(broken, i):
			b.record(i, outcomeSkip)
		case i >= first:
			b.record(i, outcomeWorse)
		default:
			b.record(i, outcomeSame)
		}
	}
	found, candidates = b.result()
	return probes, found, candidates
}

// TestBisectionFindsTheFirstWorse: over 15 revisions the search names
// each possible first worse one in at most 4 probes, the bad one probed
// only when the search ends on it; none worse is told in 5.
func TestBisectionFindsTheFirstWorse(t *testing.T) {
	t.Parallel()
	for first := 0; first <= 15; first++ {
		probes, found, candidates := searchFor(15, first)
		want := first
		if first == 15 {
			want = -1
		}
		if found != want || candidates != nil || len(probes) > 4+btoi(first >= 14) {
			t.Errorf("first worse %d: found %d (candidates %v) with probes %v", first, found, candidates, probes)
		}
	}
	if probes, _, _ := searchFor(15, 9); !slices.Equal(probes, []int{6, 10, 8, 9}) {
		t.Errorf("probes %v, want the middles 6, 10, 8, 9", probes)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestBisectionSkipsLikeGit: a revision that does not build is skipped
// and its nearest neighbour probed instead; when skipped revisions are
// all that is left before the first worse one, they are its candidates;
// a bad revision that does not build names none.
func TestBisectionSkipsLikeGit(t *testing.T) {
	t.Parallel()
	probes, found, candidates := searchFor(15, 9, 6)
	if found != 9 || candidates != nil || !slices.Equal(probes, []int{6, 5, 9, 7, 8}) {
		t.Errorf("middle skipped: probes %v, found %d (candidates %v); want 6, its older neighbour 5, then 9, 7, 8, and 9 found", probes, found, candidates)
	}
	probes, found, candidates = searchFor(15, 9, 8)
	if found != 9 || !slices.Equal(candidates, []int{8, 9}) {
		t.Errorf("the one before the first worse skipped: probes %v, found %d, candidates %v; want 9 with [8 9]", probes, found, candidates)
	}
	if _, found, _ := searchFor(15, 15, 14); found != -1 {
		t.Errorf("bad does not build and none before is worse: found %d, want none", found)
	}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
	if probes, found, candidates := searchFor(15, 15, all...); found != -1 || len(probes) != 15 || candidates != nil {
		t.Errorf("all but bad skipped, bad not worse: probes %v, found %d", probes, found)
	}
}

// TestGoodRunsLetTheTestDecide: the good revision gets the fewest runs
// with which the U-test can reach p < 0.05 against count runs.
func TestGoodRunsLetTheTestDecide(t *testing.T) {
	t.Parallel()
	for count, want := range map[int]int{2: 8, 3: 5, 4: 4, 5: 5, 20: 20} {
		if got := goodRuns(count, compare.DefaultAlpha); got != want {
			t.Errorf("goodRuns(%d) = %d, want %d", count, got, want)
		}
	}
}
