// Package compare judges two sets of artifacts step by step, figure by
// figure (x/perf/benchmath on block or run samples, slopes on their
// autocorrelation-corrected errors), and reads their profiles for what got
// slower or grew.
package compare

import (
	"math"
	"slices"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// Verdicts of a comparison row.
const (
	Better = "better"
	Worse  = "worse"
	Same   = "same"
)

// Tests, as Row.Test names them.
const (
	// TestMannWhitney is benchmath.AssumeNothing's U-test on the metric's
	// independent samples.
	TestMannWhitney = "mann-whitney"
	// TestTrend compares two fitted figures (slopes, CPU) with their
	// standard errors.
	TestTrend = "trend"
	// TestNone marks a row that is shown but never judged.
	TestNone = "none"
	// TestGeomean marks a geomean row: a summary, never judged.
	TestGeomean = "geomean"
)

// Defaults of CompareOptions.
const (
	DefaultAlpha        = 0.05
	DefaultConfidence   = 0.95
	DefaultThresholdPct = 5.0
	// DefaultMinTrendWindow is the least span of target samples a CPU
	// verdict needs on both sides (slopes have a test of their own:
	// judgeSlope).
	DefaultMinTrendWindow = 60 * time.Second
	// DefaultFDsSlopeFloor, in fds/min, is the smallest fd slope change
	// worth a verdict: 1 fd/min is 1,440 a day, enough to exhaust the
	// common soft limit of 1,024 within a day; slower leaks need soaks far
	// longer than one window to stand out from connection churn.
	DefaultFDsSlopeFloor = 1.0
	// DefaultCPUFloor, in cores, is the smallest CPU change worth a
	// verdict: run-to-run noise on a shared 2-core machine is a few
	// hundredths of a core.
	DefaultCPUFloor = 0.05
)

// CompareOptions tune how a difference is judged. The zero value uses the
// defaults above.
type CompareOptions struct {
	// Alpha is the significance level of the U-test. Default 0.05.
	Alpha float64
	// Confidence is the level of the confidence intervals shown beside each
	// median. Default 0.95.
	Confidence float64
	// ThresholdPct is the minimum effect, in percent of the base figure,
	// for a verdict other than same on sampled metrics and CPU. Default 5.
	ThresholdPct float64
	// Threshold overrides the minimum effect, in percent, per metric name
	// (see MetricNames), e.g. {"p99": 10}. Slopes ignore it: they have the
	// absolute floors below.
	Threshold map[string]float64
	// MinTrendWindow is the least time the target's samples must cover on
	// both sides for a CPU verdict. Default 60 s. Slopes (RSS, fds) are
	// judged by their own test, whatever their span (judgeSlope).
	MinTrendWindow time.Duration
	// RSSSlopeFloor is the least RSS slope change for a verdict, in MB/min.
	// Default 1.
	RSSSlopeFloor float64
	// FDsSlopeFloor is the least fd slope change for a verdict, in fds/min.
	// Default 1.
	FDsSlopeFloor float64
	// CPUFloor is the least CPU change for a verdict, in cores. Default 0.05.
	CPUFloor float64
}

func (o CompareOptions) withDefaults() CompareOptions {
	orDefault := func(v *float64, d float64) {
		if *v <= 0 {
			*v = d
		}
	}
	orDefault(&o.Alpha, DefaultAlpha)
	orDefault(&o.Confidence, DefaultConfidence)
	orDefault(&o.ThresholdPct, DefaultThresholdPct)
	orDefault(&o.RSSSlopeFloor, artifacts.DefaultRSSSlopeFloor)
	orDefault(&o.FDsSlopeFloor, DefaultFDsSlopeFloor)
	orDefault(&o.CPUFloor, DefaultCPUFloor)
	if o.MinTrendWindow <= 0 {
		o.MinTrendWindow = DefaultMinTrendWindow
	}
	return o
}

func (o CompareOptions) threshold(m metricDef) float64 {
	if t, ok := o.Threshold[m.name]; ok {
		return t
	}
	return max(o.ThresholdPct, TailThresholdPct[m.name])
}

// TailThresholdPct are the least minimum effects of the figures at the far
// tail: a p99.9 or a max rests on a handful of operations, and between two
// runs of one unchanged server they moved by up to 13.6% with p < 0.05
// (bench/verdict-rates.sh, docs/performance.md). A larger --threshold
// raises them too; a per-metric one replaces them.
var TailThresholdPct = map[string]float64{MetricP999: 15, MetricMax: 20}

// floor is a trend metric's least absolute change for a verdict.
func (o CompareOptions) floor(m metricDef) float64 {
	switch m.name {
	case MetricRSSSlope:
		return o.RSSSlopeFloor
	case MetricFDsSlope:
		return o.FDsSlopeFloor
	}
	return o.CPUFloor
}

// Row is one figure of one step compared between a base and a current run.
type Row struct {
	Group  string
	Step   string
	Metric string
	// Base and Current are, for a row judged on samples, the medians of the
	// samples (as benchstat shows them); otherwise the step's summary
	// figures: requests/s, milliseconds, a fraction for error_rate, a count
	// for dropped, MB/min, fds/min, fds per unit, cores.
	Base    float64
	Current float64
	// DeltaPct is (Current-Base)/Base in percent; +Inf when Base is 0 and
	// Current is not, 0 when both are 0.
	DeltaPct float64
	// Verdict is Better, Worse or Same (within noise, below the minimum
	// effect, or not judged: see Untested and Notes).
	Verdict string
	// Untested marks a row whose test could not run or could not have seen
	// the least change worth a verdict (too few samples, too short a run):
	// its Same means "cannot tell", not "within noise"; a note says why.
	// Rows that are never judged (Test is TestNone) are not marked.
	Untested      bool
	LowerIsBetter bool
	// Test names how the row was judged: TestMannWhitney, TestTrend,
	// TestNone or TestGeomean.
	Test string
	// P is the U-test's p-value; NaN when no U-test ran.
	P float64
	// NBase and NCurrent are the samples per side (steps, for a geomean).
	NBase, NCurrent int
	// BaseCIPct and CurrentCIPct are the half-widths of the confidence
	// intervals of the medians, in percent of them (benchstat's "± 3%");
	// +Inf with too few samples for an interval, NaN when unknown.
	BaseCIPct, CurrentCIPct float64
	// Samples says what the samples are: "runs", "blocks of 1s", or both
	// kinds as "base vs current" when they differ; "" without samples.
	Samples string
	// BaseSE and CurrentSE are the standard errors of a trend row's figures;
	// BaseSpanS and CurrentSpanS the seconds the target's samples cover.
	BaseSE, CurrentSE       float64
	BaseSpanS, CurrentSpanS float64
	// Notes are footnotes: why a row has no verdict (too few samples, no
	// samples, not enough data for a trend) or how to read its interval.
	Notes []string
}

// untested marks the row untested, for the reason n.
func (r *Row) untested(n string) {
	r.Untested = true
	r.note(n)
}

func (r *Row) note(n string) {
	if !slices.Contains(r.Notes, n) {
		r.Notes = append(r.Notes, n)
	}
}

// Comparison is the result of comparing two sets of artifacts: built once,
// rendered by every front end (text, markdown, JSON, the console).
type Comparison struct {
	Rows []Row
	// Geomean holds, for each latency and throughput metric compared in
	// more than one step, the geometric mean of its figures over those
	// steps; summaries, never judged.
	Geomean []Row
	// Warnings are reasons to doubt or read carefully the rows: different
	// plans, hosts or configs, samples of different kinds, errors, partial
	// runs, groups or steps present on one side only.
	Warnings []string
}

// Worse reports whether any row is a regression.
func (c Comparison) Worse() bool {
	for _, r := range c.Rows {
		if r.Verdict == Worse {
			return true
		}
	}
	return false
}

// Footnotes returns the distinct notes of the rows and geomean rows in
// order of first appearance; footnote i is marked i+1 in the tables.
func (c Comparison) Footnotes() []string {
	var out []string
	for _, r := range append(slices.Clip(c.Rows), c.Geomean...) {
		for _, n := range r.Notes {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// Compare matches base and current artifacts by group id (the newest run of
// a group when one side holds several) and their steps by label, and judges
// every figure. A sampled figure (throughput, latency percentiles, error
// rate) is worse or better only when the U-test on its own independent
// samples (Step.Samples: repetitions or blocks of one run) gives p <
// opts.Alpha and its median moved by at least the minimum effect. A slope
// (RSS, fds) is judged by judgeSlope: a t-test allowing for
// autocorrelation, or the tilt a bounded disturbance could cause, and the
// leak floors. CPU needs a change beyond twice its standard error and an
// absolute floor, over at least opts.MinTrendWindow on both sides.
// Anything less is same, marked untested with a footnote when the data
// could not decide.
func Compare(base, current []*artifacts.Artifact, opts CompareOptions) Comparison {
	opts = opts.withDefaults()
	b, c := artifacts.NewestByGroup(base), artifacts.NewestByGroup(current)
	var out Comparison
	for _, id := range unionKeys(b, c) {
		ba, ca := b[id], c[id]
		switch {
		case ba == nil:
			out.warn(id + ": only in current, nothing to compare with")
		case ca == nil:
			out.warn(id + ": only in base, not in current")
		default:
			compareGroup(&out, ba, ca, opts)
		}
	}
	out.Geomean = geomeans(out.Rows)
	return out
}

func (c *Comparison) warn(w string) { c.Warnings = append(c.Warnings, w) }

func unionKeys(a, b map[string]*artifacts.Artifact) []string {
	var ids []string
	for id := range a {
		ids = append(ids, id)
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			ids = append(ids, id)
		}
	}
	artifacts.SortNatural(ids)
	return ids
}

func compareGroup(out *Comparison, base, cur *artifacts.Artifact, opts CompareOptions) {
	out.Warnings = append(out.Warnings, provenanceWarnings(base, cur)...)
	id := cur.Group.ID
	baseSteps := make(map[string]*artifacts.Step, len(base.Steps))
	for i := range base.Steps {
		baseSteps[base.Steps[i].Label] = &base.Steps[i]
	}
	seen := make(map[string]bool)
	for i := range cur.Steps {
		cs := &cur.Steps[i]
		seen[cs.Label] = true
		bs := baseSteps[cs.Label]
		if bs == nil {
			out.warn(id + " " + stepName(cs.Label) + ": only in current")
			continue
		}
		compareStep(out, id, bs, cs, opts)
	}
	for _, s := range base.Steps {
		if !seen[s.Label] {
			out.warn(id + " " + stepName(s.Label) + ": only in base")
		}
	}
}

func stepName(label string) string {
	if label == "" {
		return "(single step)"
	}
	return label
}

func compareStep(out *Comparison, group string, b, c *artifacts.Step, opts CompareOptions) {
	where := group + " " + stepName(c.Label)
	out.Warnings = append(out.Warnings, countWarnings(where, b, c)...)
	out.Warnings = append(out.Warnings, samplesWarnings(where, b.Samples, c.Samples)...)
	for _, cf := range figureSets(c) {
		if bf, ok := figureSetOf(b, cf.name); ok {
			compareFigures(out, group, cf.suffix(), bf, cf.step, opts)
		}
	}
	if (b.Target == nil) != (c.Target == nil) {
		out.warn(where + ": target resources measured on one side only")
	}
	compareTargets(out, group, b, c, opts)
}

// namedAsStep is a named request's figures as a step of their own, for
// the metrics to read: its rates over the step's duration.
func namedAsStep(s *artifacts.Step, n artifacts.NamedStep) *artifacts.Step {
	ns := &artifacts.Step{Label: s.Label, DurationS: s.DurationS, Requests: n.Requests, Errors: n.Errors, Dropped: n.Dropped,
		ErrorKinds: n.ErrorKinds, LatencyMS: n.LatencyMS, Samples: n.Samples}
	if s.DurationS > 0 {
		ns.ThroughputRPS = float64(n.Requests) / s.DurationS
		ns.OKRPS = float64(n.Requests-n.Errors) / s.DurationS
	}
	return ns
}

// compareFigures adds a row per metric of two steps (or two named
// requests' figures, whose metric names get suffix).
func compareFigures(out *Comparison, group, suffix string, b, c *artifacts.Step, opts CompareOptions) {
	for _, m := range metrics {
		bv, bok := m.value(b)
		cv, cok := m.value(c)
		if !bok || !cok {
			continue
		}
		if bv == 0 && cv == 0 && b.Samples.N(m.sample) == 0 && c.Samples.N(m.sample) == 0 &&
			m.name != MetricErrorRate && m.name != MetricThroughput {
			continue // a figure neither run measured, such as dropped in a closed loop
		}
		row := Row{Group: group, Step: c.Label, Metric: m.name + suffix, Base: bv, Current: cv,
			DeltaPct: deltaPct(bv, cv), LowerIsBetter: m.lowerBetter, Verdict: Same, Test: TestNone,
			P: math.NaN(), BaseCIPct: math.NaN(), CurrentCIPct: math.NaN()}
		switch m.judge {
		case bySamples:
			judgeSamples(&row, m, b.Samples, c.Samples, opts)
		case byTrend:
			judgeTrend(&row, m, b.Target, c.Target, opts)
		}
		out.Rows = append(out.Rows, row)
	}
}

func direction(increased, lowerBetter bool) string {
	if increased == lowerBetter {
		return Worse
	}
	return Better
}

func deltaPct(base, cur float64) float64 {
	switch {
	case base == cur:
		return 0
	case base == 0:
		return math.Copysign(math.Inf(1), cur)
	}
	return (cur - base) / math.Abs(base) * 100
}
