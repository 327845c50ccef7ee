package artifacts

// Metric names, as they appear in comparison rows, JSON output and the keys
// of CompareOptions.Threshold.
const (
	MetricThroughput = "throughput_rps"
	MetricP50        = "p50"
	MetricP90        = "p90"
	MetricP99        = "p99"
	MetricP999       = "p999"
	MetricMax        = "max"
	MetricErrorRate  = "error_rate"
	MetricDropped    = "dropped"
	MetricRSSSlope   = "rss_slope"
	MetricFDsPerUnit = "fds_per_unit"
	MetricCPU        = "cpu"
)

// judgement is how a metric's difference is judged.
type judgement int

const (
	bySamples judgement = iota // Mann-Whitney U on per-interval samples, plus effect size
	byCounts                   // two-proportion test on event counts, plus effect size
	byEffect                   // effect size alone: the artifact keeps one number per step
)

// metricDef describes one compared figure of a step.
type metricDef struct {
	name        string
	lowerBetter bool
	judge       judgement
	// value returns the step's figure, and false when the step has none.
	value func(s *Step) (float64, bool)
	// sample returns one interval's sample, and false to skip the interval.
	sample func(p Point) (float64, bool)
	// count returns the events and the trials for a byCounts metric.
	count func(s *Step) (k, n int64)
	// minAbs is the smallest absolute difference worth a verdict, for
	// figures near zero where a percentage means little.
	minAbs float64
}

func rpsSample(p Point) (float64, bool) { return p.RPS, true }

// Latency samples skip intervals in which nothing completed: their
// percentiles are zero, not fast.
func p50Sample(p Point) (float64, bool) { return p.P50MS, p.RPS > 0 || p.P50MS > 0 }
func p99Sample(p Point) (float64, bool) { return p.P99MS, p.RPS > 0 || p.P99MS > 0 }

func latency(get func(Percentiles) float64) func(s *Step) (float64, bool) {
	return func(s *Step) (float64, bool) { return get(s.LatencyMS), true }
}

func target(get func(*TargetStats) float64) func(s *Step) (float64, bool) {
	return func(s *Step) (float64, bool) {
		if s.Target == nil {
			return 0, false
		}
		return get(s.Target), true
	}
}

// metrics lists the compared figures in row order. p90, p999 and max are
// tested on the p99 series: the series keeps only p50 and p99 per interval.
var metrics = []metricDef{
	{name: MetricThroughput, judge: bySamples, sample: rpsSample,
		value: func(s *Step) (float64, bool) { return s.ThroughputRPS, true }},
	{name: MetricP50, lowerBetter: true, judge: bySamples, sample: p50Sample,
		value: latency(func(p Percentiles) float64 { return p.P50 })},
	{name: MetricP90, lowerBetter: true, judge: bySamples, sample: p99Sample,
		value: latency(func(p Percentiles) float64 { return p.P90 })},
	{name: MetricP99, lowerBetter: true, judge: bySamples, sample: p99Sample,
		value: latency(func(p Percentiles) float64 { return p.P99 })},
	{name: MetricP999, lowerBetter: true, judge: bySamples, sample: p99Sample,
		value: latency(func(p Percentiles) float64 { return p.P999 })},
	{name: MetricMax, lowerBetter: true, judge: bySamples, sample: p99Sample,
		value: latency(func(p Percentiles) float64 { return p.Max })},
	{name: MetricErrorRate, lowerBetter: true, judge: byCounts,
		value: func(s *Step) (float64, bool) { return ratio(s.Errors, s.Requests), true },
		count: func(s *Step) (int64, int64) { return s.Errors, s.Requests }},
	{name: MetricDropped, lowerBetter: true, judge: byCounts,
		value: func(s *Step) (float64, bool) { return float64(s.Dropped), true },
		count: func(s *Step) (int64, int64) { return s.Dropped, s.Requests + s.Dropped }},
	{name: MetricRSSSlope, lowerBetter: true, judge: byEffect, minAbs: 0.5,
		value: target(func(t *TargetStats) float64 { return t.RSSSlopeMBPerMin })},
	{name: MetricFDsPerUnit, lowerBetter: true, judge: byEffect, minAbs: 0.1,
		value: target(func(t *TargetStats) float64 { return t.FDsPerUnit })},
	{name: MetricCPU, lowerBetter: true, judge: byEffect, minAbs: 0.02,
		value: target(func(t *TargetStats) float64 { return t.CPUCores })},
}

// MetricNames returns the names of the compared figures in row order.
func MetricNames() []string {
	out := make([]string, len(metrics))
	for i, m := range metrics {
		out[i] = m.name
	}
	return out
}

func ratio(k, n int64) float64 {
	if n <= 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// samplesOf returns a metric's per-interval samples of a step.
func samplesOf(m metricDef, s *Step) []float64 {
	out := make([]float64, 0, len(s.Series))
	for _, p := range s.Series {
		if v, ok := m.sample(p); ok {
			out = append(out, v)
		}
	}
	return out
}
