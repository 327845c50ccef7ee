package artifacts

import (
	"math"
	"sort"
	"strconv"
)

// Verdicts of a comparison row.
const (
	Better = "better"
	Worse  = "worse"
	Same   = "same"
)

// Defaults of CompareOptions.
const (
	DefaultAlpha              = 0.05
	DefaultThresholdPct       = 5.0
	DefaultUnsampledThreshold = 10.0
	DefaultMinSamples         = 5
)

// CompareOptions tune how a difference is judged. The zero value uses the
// defaults above.
type CompareOptions struct {
	// Alpha is the significance level of the Mann-Whitney U and
	// two-proportion tests. Default 0.05.
	Alpha float64
	// ThresholdPct is the minimum effect, in percent of the base figure, for
	// a verdict other than same on metrics judged by a test. Default 5.
	ThresholdPct float64
	// UnsampledThresholdPct is the minimum effect, in percent, for metrics
	// that have no per-interval samples and are judged by effect size alone
	// (rss_slope, fds_per_unit, cpu). Default 10.
	UnsampledThresholdPct float64
	// Threshold overrides the minimum effect, in percent, per metric name
	// (see MetricNames), e.g. {"p99": 10}.
	Threshold map[string]float64
	// MinSamples is the fewest per-interval samples per side for a test;
	// with fewer the verdict is same and a warning says why. Default 5.
	MinSamples int
}

func (o CompareOptions) withDefaults() CompareOptions {
	if o.Alpha <= 0 {
		o.Alpha = DefaultAlpha
	}
	if o.ThresholdPct <= 0 {
		o.ThresholdPct = DefaultThresholdPct
	}
	if o.UnsampledThresholdPct <= 0 {
		o.UnsampledThresholdPct = DefaultUnsampledThreshold
	}
	if o.MinSamples <= 0 {
		o.MinSamples = DefaultMinSamples
	}
	return o
}

func (o CompareOptions) threshold(m metricDef) float64 {
	if t, ok := o.Threshold[m.name]; ok {
		return t
	}
	if m.judge == byEffect {
		return o.UnsampledThresholdPct
	}
	return o.ThresholdPct
}

// Row is one figure of one step compared between a base and a current run.
type Row struct {
	Group  string
	Step   string
	Metric string
	// Base and Current are the step's summary figures: requests/s,
	// milliseconds, a fraction for error_rate, a count for dropped, MB/min,
	// fds per unit, cores.
	Base    float64
	Current float64
	// DeltaPct is (Current-Base)/Base in percent; +Inf when Base is 0 and
	// Current is not, 0 when both are 0.
	DeltaPct float64
	// Verdict is Better, Worse or Same (within noise or below the threshold).
	Verdict       string
	LowerIsBetter bool
	// Test names how the row was judged: "mann-whitney", "two-proportion"
	// or "effect" (effect size alone).
	Test string
	// P is the test's two-sided p-value; NaN for "effect".
	P float64
	// NBase and NCurrent are the samples per side of a Mann-Whitney test.
	NBase, NCurrent int
}

// Comparison is the result of comparing two sets of artifacts: built once,
// rendered by every front end (text, markdown, JSON, the console).
type Comparison struct {
	Rows []Row
	// Warnings are reasons to doubt or read carefully the rows: different
	// plans, hosts or configs, too few samples, errors, partial runs,
	// groups or steps present on one side only.
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

// Compare matches base and current artifacts by group id (the newest run of
// a group when one side holds several) and their steps by label, and judges
// every figure. A verdict other than same needs a significant difference
// (Mann-Whitney U on the per-interval series samples, or a two-proportion
// test on error and drop counts, at opts.Alpha) and an effect of at least
// the metric's threshold. Figures without samples are judged on effect size
// alone, with the larger UnsampledThresholdPct.
func Compare(base, current []*Artifact, opts CompareOptions) Comparison {
	opts = opts.withDefaults()
	b, c := newestByGroup(base), newestByGroup(current)
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
	return out
}

func (c *Comparison) warn(w string) { c.Warnings = append(c.Warnings, w) }

func newestByGroup(arts []*Artifact) map[string]*Artifact {
	m := make(map[string]*Artifact)
	for _, a := range arts {
		if a == nil {
			continue
		}
		if old, ok := m[a.Group.ID]; !ok || !a.Run.Started.Before(old.Run.Started) {
			m[a.Group.ID] = a
		}
	}
	return m
}

func unionKeys(a, b map[string]*Artifact) []string {
	var ids []string
	for id := range a {
		ids = append(ids, id)
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			ids = append(ids, id)
		}
	}
	sortNatural(ids)
	return ids
}

// sortNatural sorts ids so that digit runs compare as numbers: G2 < G10.
func sortNatural(ids []string) {
	sort.Slice(ids, func(i, j int) bool { return naturalLess(ids[i], ids[j]) })
}

func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da != "" && db != "" {
			na, _ := strconv.ParseUint(da, 10, 64)
			nb, _ := strconv.ParseUint(db, 10, 64)
			if na != nb {
				return na < nb
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

func compareGroup(out *Comparison, base, cur *Artifact, opts CompareOptions) {
	out.Warnings = append(out.Warnings, provenanceWarnings(base, cur)...)
	id := cur.Group.ID
	baseSteps := make(map[string]*Step, len(base.Steps))
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

func compareStep(out *Comparison, group string, b, c *Step, opts CompareOptions) {
	where := group + " " + stepName(c.Label)
	out.Warnings = append(out.Warnings, countWarnings(where, b, c)...)
	fewSamples := false
	for _, m := range metrics {
		bv, bok := m.value(b)
		cv, cok := m.value(c)
		if !bok || !cok {
			continue
		}
		if bv == 0 && cv == 0 && m.name != MetricErrorRate && m.name != MetricThroughput {
			continue // a figure neither run measured, such as dropped in a closed loop
		}
		row := Row{Group: group, Step: c.Label, Metric: m.name, Base: bv, Current: cv,
			DeltaPct: deltaPct(bv, cv), LowerIsBetter: m.lowerBetter, P: math.NaN(), Verdict: Same}
		fewSamples = judge(&row, m, b, c, opts) || fewSamples
		out.Rows = append(out.Rows, row)
	}
	if fewSamples {
		out.warn(where + ": too few per-interval samples to judge (need " +
			strconv.Itoa(opts.MinSamples) + " per side); verdict same")
	}
	if (b.Target == nil) != (c.Target == nil) {
		out.warn(where + ": target resources measured on one side only")
	}
}

// judge sets row's verdict and test figures; it returns true when a test
// lacked samples.
func judge(row *Row, m metricDef, b, c *Step, opts CompareOptions) (fewSamples bool) {
	significant := false
	switch m.judge {
	case bySamples:
		xs, ys := samplesOf(m, b), samplesOf(m, c)
		row.Test, row.NBase, row.NCurrent = "mann-whitney", len(xs), len(ys)
		if len(xs) < opts.MinSamples || len(ys) < opts.MinSamples {
			return true
		}
		row.P = MannWhitneyU(xs, ys).P
		significant = row.P < opts.Alpha
	case byCounts:
		bk, bn := m.count(b)
		ck, cn := m.count(c)
		row.Test, row.P = "two-proportion", TwoProportions(bk, bn, ck, cn)
		significant = row.P < opts.Alpha
	case byEffect:
		row.Test = "effect"
		significant = math.Abs(row.Current-row.Base) >= m.minAbs
	}
	if significant && math.Abs(row.DeltaPct) >= opts.threshold(m) {
		row.Verdict = direction(row.Current > row.Base, m.lowerBetter)
	}
	return false
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
