package main

import (
	"context"

	"github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/ui"
)

// bisectFeed sends a bisection's events to its live view (--console);
// a nil feed, without --console, sends nothing.
type bisectFeed struct {
	ctx context.Context // the bisection's: once it ends, nothing waits for the view
	ch  chan<- ui.BisectEvent
}

// send hands ev to the view, waiting for room unless the bisection was
// cancelled.
func (f *bisectFeed) send(ev ui.BisectEvent) {
	if f == nil {
		return
	}
	select {
	case f.ch <- ev:
	case <-f.ctx.Done():
	}
}

// live hands the view a snapshot of the running group, or drops it when
// the view has not caught up: the next one follows within a tick, and
// the load never waits for the screen.
func (f *bisectFeed) live(s engine.Snapshot) {
	if f == nil {
		return
	}
	select {
	case f.ch <- ui.BisectLive{Snap: s}:
	default:
	}
}

// opening is the view's first event: the revisions and how they are
// judged.
func (b *bisector) opening(maxProbes int) ui.BisectRange {
	r := ui.BisectRange{Good: viewCommit(b.good), Group: b.group.ID, Figure: b.f.figure, Runs: b.f.count,
		GoodRuns: b.goodCounts, MaxProbes: maxProbes, Dir: b.out}
	for _, rev := range b.revs {
		r.Commits = append(r.Commits, viewCommit(rev))
	}
	return r
}

func viewCommit(r revision) ui.BisectCommit {
	return ui.BisectCommit{Hash: r.short(), Subject: r.subject}
}

// judged is the view's event for revision i's verdict o (i is -1 for the
// good revision, the base), with the search's bounds after it.
func judged(i int, p probe, o outcome, s *bisection) ui.BisectJudged {
	j := ui.BisectJudged{Index: i, Good: s.lo, Bad: s.hi, Left: s.left()}
	switch {
	case i < 0:
		j.Outcome = ui.BisectBase
	case o == outcomeSkip:
		j.Outcome, j.Why = ui.BisectSkipped, p.skip
	case o == outcomeWorse:
		j.Outcome = ui.BisectWorse
	default:
		j.Outcome = ui.BisectSame
	}
	if r, _, ok := decidingRow(p.cmp); ok && i >= 0 {
		j.Row = &r
	}
	return j
}

// ending is the view's last event when the search ended with a verdict:
// the first worse revision and its table, or none.
func ending(s *bisection, probed map[int]probe, probes int) ui.BisectEnd {
	first, candidates := s.result()
	e := ui.BisectEnd{First: first, Candidates: candidates, Probes: probes}
	if first >= 0 {
		c := probed[first].cmp
		e.Cmp = &c
	}
	return e
}

// decidingRow is the row of c that decided its verdict: the first worse
// one, else the first; with how many were worse, false without rows.
func decidingRow(c compare.Comparison) (row compare.Row, worse int, ok bool) {
	if len(c.Rows) == 0 {
		return row, 0, false
	}
	row = c.Rows[0]
	for _, r := range c.Rows {
		if r.Verdict == compare.Worse {
			if worse == 0 {
				row = r
			}
			worse++
		}
	}
	return row, worse, true
}
