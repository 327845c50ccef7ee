package ui

import (
	artcompare "github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/engine"
)

// BisectEvent is what a bisection tells its live view (`benchtui bisect
// --console`), in the order it happens: a BisectRange first, then for
// each probe a BisectProbe (building, then running), its BisectLive
// snapshots and a BisectJudged, and a BisectEnd last. The bisection
// closes the channel once it has cleaned up (its worktree removed).
type BisectEvent interface{ bisectEvent() }

// BisectCommit is one commit of a bisection. Subject is as git has it:
// the view strips its control characters.
type BisectCommit struct {
	Hash    string // cut to 12 hex digits
	Subject string
}

// BisectRange opens a bisection: the good revision and the commits after
// it up to the bad one (the last), oldest first.
type BisectRange struct {
	Good    BisectCommit
	Commits []BisectCommit
	// Group is the group run at each revision, Figure the metric that
	// judges (or "any").
	Group, Figure string
	// Runs are the runs of each probed revision, GoodRuns the good one's.
	Runs, GoodRuns int
	// MaxProbes is how many probes the search needs at most without
	// skips, the good revision's included.
	MaxProbes int
	// Dir is the artifacts folder: each probe's files are in bisect-HASH/.
	Dir string
}

// BisectProbe says a probe started building its revision, or, with
// Building false, that its runs started.
type BisectProbe struct {
	// Index is the revision's place in BisectRange.Commits; -1 the good
	// revision.
	Index int
	// N is the probe's number, 1 the good revision's.
	N        int
	Runs     int
	Building bool
}

// BisectLive is the engine's newest snapshot of the running probe's
// group.
type BisectLive struct {
	Snap engine.Snapshot
}

// BisectOutcome is what a probe found.
type BisectOutcome int

const (
	// BisectBase: the good revision ran: the base of every verdict.
	BisectBase BisectOutcome = iota
	// BisectSame: not judged worse; the first worse is after it.
	BisectSame
	// BisectWorse: judged worse; the first worse is it or before it.
	BisectWorse
	// BisectSkipped: it did not build or run (Why says which).
	BisectSkipped
)

// BisectJudged is a probe's verdict and the search's bounds after it.
type BisectJudged struct {
	Index   int // as BisectProbe's
	Outcome BisectOutcome
	// Row is the figure's row that decided (the first worse, else the
	// first); nil for the base and a skipped revision.
	Row *artcompare.Row
	// Why a skipped revision could not be judged.
	Why string
	// Good is the newest revision not judged worse (-1: the good one),
	// Bad the oldest judged worse, else the bad one: the first worse is
	// after Good, at Bad or before it.
	Good, Bad int
	// Left is how many more probes the search needs at most.
	Left int
}

// BisectEnd ends a bisection: the first revision judged worse (First,
// -1 when none was), the candidates skipped revisions leave open (oldest
// first, First last; nil when none), the probes used and the verdict
// table of First against the good revision. Err says why it ended
// without a verdict (an interrupt, a good revision that does not build,
// a git error); First is -1 then.
type BisectEnd struct {
	First      int
	Candidates []int
	Probes     int
	Cmp        *artcompare.Comparison
	Err        string
}

func (BisectRange) bisectEvent()  {}
func (BisectProbe) bisectEvent()  {}
func (BisectLive) bisectEvent()   {}
func (BisectJudged) bisectEvent() {}
func (BisectEnd) bisectEvent()    {}
