package compare

import (
	"fmt"

	"github.com/benchtui/benchtui/artifacts"
)

// Metric names, as they appear in comparison rows, JSON output and the keys
// of CompareOptions.Threshold.
const (
	MetricThroughput = "throughput_rps"
	MetricOKRPS      = "ok_rps"
	MetricP50        = "p50"
	MetricP90        = "p90"
	MetricP99        = "p99"
	MetricP999       = "p999"
	MetricMax        = "max"
	MetricErrorRate  = "error_rate"
	MetricDropped    = "dropped"
	MetricRSSSlope   = "rss_slope"
	MetricFDsSlope   = "fds_slope"
	MetricFDsPerUnit = "fds_per_unit"
	MetricCPU        = "cpu"
)

// judgement is how a metric's difference is judged.
type judgement int

const (
	// bySamples: the U-test of benchmath.AssumeNothing on the metric's own
	// values in Step.Samples, plus the minimum effect.
	bySamples judgement = iota
	// byTrend: a fitted figure of the target; a slope by judgeSlope, CPU
	// against twice its standard error, a floor and a minimum span.
	byTrend
	// notJudged: shown for reading, never a verdict; the artifact keeps one
	// number per step and no error bar for it.
	notJudged
)

// metricDef describes one compared figure of a step.
type metricDef struct {
	name        string
	lowerBetter bool
	judge       judgement
	// sample is the key of the metric in Samples.Values (bySamples).
	sample string
	// value returns the step's summary figure, and false when it has none.
	value func(s *artifacts.Step) (float64, bool)
	// trend returns a byTrend figure of the target, its standard error and,
	// for a slope, how the error was estimated.
	trend func(t *artifacts.TargetStats) trendFigure
	// relative: a byTrend metric that is a level, not a slope, so the
	// minimum effect in percent applies too (a percentage of a slope near
	// zero means nothing: 0.03 -> 3.46 MB/min is +11,000%).
	relative bool
	// geomean: the metric has a geomean row over the compared steps.
	geomean bool
}

func latency(key string, get func(artifacts.Percentiles) float64) metricDef {
	return metricDef{name: key, lowerBetter: true, judge: bySamples, sample: key, geomean: true,
		value: func(s *artifacts.Step) (float64, bool) { return get(s.LatencyMS), true }}
}

// trendFigure is a fitted figure of a target: its value, standard error
// and, for a slope, the fit behind the error (nil in older artifacts and
// for CPU).
type trendFigure struct {
	v, se float64
	fit   *artifacts.SlopeFit
}

func targetValue(get func(*artifacts.TargetStats) trendFigure) func(s *artifacts.Step) (float64, bool) {
	return func(s *artifacts.Step) (float64, bool) {
		if s.Target == nil {
			return 0, false
		}
		return get(s.Target).v, true
	}
}

func trendMetric(name string, relative bool, get func(*artifacts.TargetStats) trendFigure) metricDef {
	return metricDef{name: name, lowerBetter: true, judge: byTrend, trend: get, relative: relative,
		value: targetValue(get)}
}

// metrics lists the compared figures in row order. Each sampled metric is
// tested on its own samples: p90 on the p90 of every sample, never on
// another percentile's.
var metrics = []metricDef{
	{name: MetricThroughput, judge: bySamples, sample: artifacts.SampleRPS, geomean: true,
		value: func(s *artifacts.Step) (float64, bool) { return s.ThroughputRPS, true }},
	{name: MetricOKRPS, judge: bySamples, sample: artifacts.SampleOKRPS, geomean: true,
		value: func(s *artifacts.Step) (float64, bool) { return s.OKRPS, true }},
	latency(MetricP50, func(p artifacts.Percentiles) float64 { return p.P50 }),
	latency(MetricP90, func(p artifacts.Percentiles) float64 { return p.P90 }),
	latency(MetricP99, func(p artifacts.Percentiles) float64 { return p.P99 }),
	latency(MetricP999, func(p artifacts.Percentiles) float64 { return p.P999 }),
	latency(MetricMax, func(p artifacts.Percentiles) float64 { return p.Max }),
	{name: MetricErrorRate, lowerBetter: true, judge: bySamples, sample: artifacts.SampleErrorRate,
		value: func(s *artifacts.Step) (float64, bool) { return Ratio(s.Errors, s.Requests), true }},
	{name: MetricDropped, lowerBetter: true, judge: notJudged,
		value: func(s *artifacts.Step) (float64, bool) { return float64(s.Dropped), true }},
	trendMetric(MetricRSSSlope, false, func(t *artifacts.TargetStats) trendFigure {
		return trendFigure{t.RSSSlopeMBPerMin, t.RSSSlopeSE, t.RSSFit}
	}),
	trendMetric(MetricFDsSlope, false, func(t *artifacts.TargetStats) trendFigure {
		return trendFigure{t.FDsSlopePerMin, t.FDsSlopeSE, t.FDsFit}
	}),
	{name: MetricFDsPerUnit, lowerBetter: true, judge: notJudged,
		value: targetValue(func(t *artifacts.TargetStats) trendFigure { return trendFigure{v: t.FDsPerUnit} })},
	trendMetric(MetricCPU, true, func(t *artifacts.TargetStats) trendFigure { return trendFigure{v: t.CPUCores, se: t.CPUCoresSE} }),
}

// MetricNames returns the names of the compared figures in row order.
func MetricNames() []string {
	out := make([]string, len(metrics))
	for i, m := range metrics {
		out[i] = m.name
	}
	return out
}

// Ratio is k/n, 0 when n is not positive.
func Ratio(k, n int64) float64 {
	if n <= 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// TrendNumber formats a trend metric's value (or change): two decimals
// for CPU and the RSS slope, else three significant digits.
func TrendNumber(metric string, v float64) string {
	if metric = artifacts.BaseMetric(metric); metric == MetricCPU || metric == MetricRSSSlope {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
