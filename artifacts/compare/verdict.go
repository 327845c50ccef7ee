package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/benchtui/benchtui/artifacts"
	"golang.org/x/perf/benchmath"
)

// NoteNoSamples is the footnote of a sampled row whose steps carry no
// independent samples: an artifact written before they were kept.
const NoteNoSamples = "no independent samples (artifact predates samples)"

// judgeSamples judges a sampled metric the way benchstat does: the
// medians and their confidence intervals from benchmath.AssumeNothing, and
// its U-test. A verdict needs p < alpha, no warning from the test (such as
// too few samples to ever reach alpha) and an effect of at least the
// metric's threshold. Without samples the row keeps the step's summary
// figures and a footnote.
func judgeSamples(row *Row, m metricDef, b, c *artifacts.Samples, opts CompareOptions) {
	xs, ys := sampleValues(b, m.sample), sampleValues(c, m.sample)
	if len(xs) == 0 || len(ys) == 0 {
		if row.Base != 0 || row.Current != 0 { // 0 and 0, such as no errors, needs no footnote
			row.untested(missingSamplesNote(m.sample, b, c))
		}
		return
	}
	th := &benchmath.Thresholds{CompareAlpha: opts.Alpha}
	sx, sy := benchmath.NewSample(xs, th), benchmath.NewSample(ys, th)
	bs := benchmath.AssumeNothing.Summary(sx, opts.Confidence)
	cs := benchmath.AssumeNothing.Summary(sy, opts.Confidence)
	row.Test, row.Samples = TestMannWhitney, describePair(b, c)
	row.NBase, row.NCurrent = len(xs), len(ys)
	row.Base, row.Current, row.DeltaPct = bs.Center, cs.Center, deltaPct(bs.Center, cs.Center)
	row.BaseCIPct, row.CurrentCIPct = ciPct(bs), ciPct(cs)
	for _, w := range append(bs.Warnings, cs.Warnings...) {
		row.note(w.Error())
	}
	if allEqual(xs, ys) {
		row.P = 1 // nothing varied and nothing changed, e.g. no errors on either side
		return
	}
	cmp := benchmath.AssumeNothing.Compare(sx, sy)
	row.P = cmp.P
	for _, w := range cmp.Warnings {
		row.untested(w.Error())
	}
	if len(cmp.Warnings) == 0 && cmp.P < opts.Alpha && math.Abs(row.DeltaPct) >= opts.threshold(m) {
		row.Verdict = direction(row.Current > row.Base, m.lowerBetter)
	}
}

// sampleValues returns a copy of the samples of key (benchmath sorts the
// values it is given in place), or nil.
func sampleValues(s *artifacts.Samples, key string) []float64 {
	if s == nil {
		return nil
	}
	return slices.Clone(s.Values[key])
}

func missingSamplesNote(key string, b, c *artifacts.Samples) string {
	switch {
	case b == nil || c == nil:
		return NoteNoSamples
	case b.N(key) == 0 && c.N(key) == 0:
		return "no " + key + " samples"
	case b.N(key) == 0:
		return "no " + key + " samples in base"
	}
	return "no " + key + " samples in current"
}

// allEqual reports whether every value of xs and ys is the same: the
// U-test has nothing to rank, and there is nothing to report either.
func allEqual(xs, ys []float64) bool {
	for _, v := range append(slices.Clip(xs), ys...) {
		if v != xs[0] {
			return false
		}
	}
	return true
}

// ciPct is the half-width of a summary's confidence interval in percent of
// its center, the larger side as benchmath's PctRangeString takes it; +Inf
// when the interval is unbounded, NaN when it spans zero.
func ciPct(s benchmath.Summary) float64 {
	switch {
	case math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0):
		return math.Inf(1)
	case s.Center == 0 && s.Lo == 0 && s.Hi == 0:
		return 0
	case s.Center <= 0 || s.Lo < 0 || s.Hi < 0:
		return math.NaN()
	}
	return 100 * math.Max(s.Hi/s.Center-1, 1-s.Lo/s.Center)
}

// describe says what a step's samples are: "runs" or "blocks of 1s".
func describe(s *artifacts.Samples) string {
	if s == nil {
		return ""
	}
	if s.Of == artifacts.SamplesOfBlocks {
		return "blocks of " + artifacts.TrimFloat(s.BlockS) + "s"
	}
	return s.Of
}

func describePair(b, c *artifacts.Samples) string {
	db, dc := describe(b), describe(c)
	if db == dc {
		return db
	}
	return db + " vs " + dc
}

// samplesWarnings say when the two sides of a step rest on unlike samples:
// repetitions against blocks of one run, or blocks of different lengths.
// The U-test still runs, but its verdict compares unlike things.
func samplesWarnings(where string, b, c *artifacts.Samples) []string {
	if b == nil || c == nil || describe(b) == describe(c) {
		return nil
	}
	return []string{fmt.Sprintf("%s: samples differ in kind (base %s, current %s): verdicts compare unlike samples",
		where, describe(b), describe(c))}
}

// judgeTrend judges a fitted figure of the target. A slope (RSS, fds) is
// judged by judgeSlope; a level (CPU) needs |Δ| > 2·sqrt(se_base² +
// se_current²), the CPU floor and the minimum effect in percent, over
// MinTrendWindow of samples on both sides.
func judgeTrend(row *Row, m metricDef, b, c *artifacts.TargetStats, opts CompareOptions) {
	bt, ct := m.trend(b), m.trend(c)
	row.Test, row.BaseSE, row.CurrentSE = TestTrend, bt.se, ct.se
	row.BaseSpanS, row.CurrentSpanS = b.SpanS, c.SpanS
	if !m.relative {
		judgeSlope(row, m, bt, ct, c, opts)
		return
	}
	if window := opts.MinTrendWindow.Seconds(); min(b.SpanS, c.SpanS) < window {
		row.untested(fmt.Sprintf("not tested: a CPU figure needs at least %s of target samples on both sides",
			artifacts.TrimFloat(window)+" s"))
		return
	}
	diff := ct.v - bt.v
	if math.Abs(diff) <= 2*math.Hypot(bt.se, ct.se) || math.Abs(diff) < opts.floor(m) {
		return
	}
	if math.Abs(row.DeltaPct) < opts.threshold(m) {
		return
	}
	row.Verdict = direction(diff > 0, m.lowerBetter)
}
