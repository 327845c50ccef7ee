package main

// outcome is what probing one revision found.
type outcome int

const (
	outcomeSame  outcome = iota // not judged worse than the good revision
	outcomeWorse                // judged worse
	outcomeSkip                 // could not be judged: it did not build or run
)

// bisection is the binary search over the revisions after the good one,
// oldest first; the last is the bad revision. Like `git bisect` it takes
// the bad revision for worse without probing it, until the search ends on
// it: then it is probed, so that no revision is ever named worse unmeasured.
type bisection struct {
	n int // revisions after the good one; the last is the bad one
	// lo is the newest revision judged not worse (-1: the good one); hi
	// the oldest judged worse, or the bad one while none is.
	lo, hi int
	// hiJudged: hi was probed and judged worse.
	hiJudged bool
	skipped  map[int]bool
}

func newBisection(n int) *bisection {
	return &bisection{n: n, lo: -1, hi: n - 1, skipped: map[int]bool{}}
}

// next is the revision to probe next, -1 when the search is over: the
// middle of those between lo and hi, or the nearest to it that was not
// skipped, as `git bisect skip` moves on to a neighbour; with none left
// between them, hi itself while it is unjudged.
func (b *bisection) next() int {
	if i := b.between(); i >= 0 {
		return i
	}
	if !b.hiJudged && b.lo < b.hi && !b.skipped[b.hi] {
		return b.hi
	}
	return -1
}

// between is the unskipped revision strictly between lo and hi nearest
// their middle (the older on a tie), -1 when there is none.
func (b *bisection) between() int {
	mid := b.lo + (b.hi-b.lo)/2
	for d := 0; mid-d > b.lo || mid+d < b.hi; d++ {
		for _, i := range []int{mid - d, mid + d} {
			if i > b.lo && i < b.hi && !b.skipped[i] {
				return i
			}
		}
	}
	return -1
}

// record takes in what probing revision i found.
func (b *bisection) record(i int, o outcome) {
	switch o {
	case outcomeWorse:
		b.hi, b.hiJudged = i, true
	case outcomeSame:
		b.lo = i
	default:
		b.skipped[i] = true
	}
}

// result is where the search ended: the first revision judged worse and,
// when skipped revisions before it leave the first one open, those
// candidates (oldest first, itself last); first is -1 when none was
// judged worse.
func (b *bisection) result() (first int, candidates []int) {
	if !b.hiJudged {
		return -1, nil
	}
	for i := b.lo + 1; i < b.hi; i++ {
		if b.skipped[i] {
			candidates = append(candidates, i)
		}
	}
	if candidates != nil {
		candidates = append(candidates, b.hi)
	}
	return b.hi, candidates
}

// left is how many more probes the search needs at most without skips:
// the halvings of the revisions still open, and the bad one's if unjudged.
func (b *bisection) left() int {
	if b.lo >= b.hi {
		return 0
	}
	n, steps := b.hi-b.lo-1, 0
	for ; n > 0; n /= 2 {
		steps++
	}
	if !b.hiJudged && !b.skipped[b.hi] {
		steps++
	}
	return steps
}
