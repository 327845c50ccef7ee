package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/benchtui/benchtui/artifacts/compare"
	artreport "github.com/benchtui/benchtui/artifacts/report"
	"github.com/benchtui/benchtui/ui"
)

// run measures the good revision, then bisects the revisions after it,
// a line on stderr per probe (and its events to the live view, with
// --console), and reports the first one judged worse on stdout.
func (b *bisector) run(ctx context.Context, stdout io.Writer) int {
	raiseFDLimit(b.stderr)
	search := newBisection(len(b.revs))
	fmt.Fprintf(b.stderr, "bisect: %d revisions after the good %s up to the bad %s; group %s judged on %s, %d runs a revision (the good one %d); at most %d probes without skips\n",
		len(b.revs), b.good.short(), b.bad.short(), b.group.ID, b.f.figure, b.f.count, b.goodCounts, 1+search.left())
	b.feed.send(b.opening(1 + search.left()))
	good, err := b.probe(ctx, -1, b.good, b.goodCounts)
	if err != nil {
		return b.stopped(err)
	}
	if good.skip != "" {
		return b.fail(exitUsage, fmt.Sprintf("the good revision %s %s: nothing to judge the others against", b.good.short(), good.skip))
	}
	fmt.Fprintf(b.stderr, "bisect: probe %d: %s is the base (good)\n", b.probes, b.good.short())
	b.feed.send(judged(-1, good, outcomeSame, search))
	probed := map[int]probe{}
	for i := search.next(); i >= 0; i = search.next() {
		p, err := b.probe(ctx, i, b.revs[i], b.f.count)
		if err != nil {
			return b.stopped(err)
		}
		o := b.judge(good, &p)
		if o != outcomeSkip && len(p.cmp.Rows) == 0 {
			return b.fail(exitUsage, fmt.Sprintf("no %s rows to judge: the group's artifacts do not have that figure", b.f.figure))
		}
		search.record(i, o)
		probed[i] = p
		b.tell(i, p, o, search.left())
		b.feed.send(judged(i, p, o, search))
	}
	b.feed.send(ending(search, probed, b.probes))
	return b.report(stdout, search, probed)
}

// stopped ends the bisection on an error or an interrupt.
func (b *bisector) stopped(err error) int {
	if errors.Is(err, context.Canceled) {
		return b.fail(exitFail, fmt.Sprintf("interrupted at probe %d; the artifacts so far are in %s", b.probes, b.out))
	}
	return b.fail(exitUsage, err.Error())
}

// fail ends the bisection without a verdict, saying why on stderr and in
// the live view, and returns code.
func (b *bisector) fail(code int, why string) int {
	fmt.Fprintln(b.errs, "benchtui bisect:", why)
	b.feed.send(ui.BisectEnd{First: -1, Probes: b.probes, Err: why})
	return code
}

// tell is a probe's live line: the revision, its place among those
// bisected, its verdict on the figure and the probes left at most.
func (b *bisector) tell(i int, p probe, o outcome, left int) {
	verdict := verdictLine(p.cmp)
	switch o {
	case outcomeSkip:
		verdict = "skipped: " + p.skip
	case outcomeWorse:
		verdict += ": the first worse is it or before it"
	default:
		verdict += ": the first worse is after it"
	}
	next := "done"
	if left > 0 {
		next = fmt.Sprintf("at most %d more", left)
	}
	fmt.Fprintf(b.stderr, "bisect: probe %d: %s (%d of %d) %s: %s; %s\n",
		b.probes, p.rev.short(), i+1, len(b.revs), quoteSubject(p.rev), verdict, next)
}

// verdictLine sums up a probe's rows of the figure by the row that
// decided it (the first worse one, else the first): "p99 1.10 ms → 6.32
// ms (+474%, p=0.036 n=5+3 runs) worse".
func verdictLine(c compare.Comparison) string {
	r, worse, ok := decidingRow(c)
	if !ok {
		return "no rows"
	}
	s := fmt.Sprintf("%s %s → %s (%s, %s) %s", strings.TrimSpace(r.Step+" "+r.Metric),
		artreport.FormatValue(r.Metric, r.Base), artreport.FormatValue(r.Metric, r.Current),
		artreport.DeltaCell(r), artreport.Basis(r), verdictWord(r))
	if len(c.Rows) > 1 {
		s += fmt.Sprintf(" (%d of %d rows worse)", worse, len(c.Rows))
	}
	return s
}

// verdictWord is a row's verdict in a word: worse, better, same, or
// "cannot tell" when the data could not decide.
func verdictWord(r compare.Row) string {
	if r.Untested {
		return "cannot tell"
	}
	return r.Verdict
}

// report prints the first revision judged worse with its verdict table,
// or why none could be named, and returns the exit code.
func (b *bisector) report(stdout io.Writer, s *bisection, probed map[int]probe) int {
	first, candidates := s.result()
	skipped := b.skippedList(s, probed)
	if first < 0 {
		fmt.Fprintf(stdout, "no revision judged worse on %s than the good %s %s (%d probes%s)\n",
			b.f.figure, b.good.short(), quoteSubject(b.good), b.probes, skipped)
		return exitFail
	}
	p := probed[first]
	if candidates != nil {
		fmt.Fprintf(stdout, "the first worse revision is one of these (skipped revisions hide it):\n")
		for _, i := range candidates {
			r := probed[i].rev
			fmt.Fprintf(stdout, "  %s %s\n", r.hash, quoteSubject(r))
		}
	} else {
		fmt.Fprintf(stdout, "first worse revision: %s %s\n", p.rev.hash, quoteSubject(p.rev))
	}
	fmt.Fprintf(stdout, "judged on %s of group %s against the good %s %s: %d probes%s; artifacts in %s\n",
		b.f.figure, b.group.ID, b.good.short(), quoteSubject(b.good), b.probes, skipped, b.out)
	if err := artreport.WriteText(stdout, p.cmp); err != nil {
		fmt.Fprintln(b.errs, "benchtui bisect:", err)
		return exitFail
	}
	if candidates != nil {
		return exitFail
	}
	return exitOK
}

// skippedList is ", skipped: HASH (why), ..." for the skipped probes, ""
// when none was.
func (b *bisector) skippedList(s *bisection, probed map[int]probe) string {
	var parts []string
	for i := range b.revs {
		if s.skipped[i] {
			parts = append(parts, probed[i].rev.short())
		}
	}
	if parts == nil {
		return ""
	}
	return fmt.Sprintf(", %d skipped: %s", len(parts), strings.Join(parts, ", "))
}
