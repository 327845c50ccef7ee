package livemetrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/benchtui/benchtui/runners/engine"
)

// The metrics' descriptions; their names are a contract (docs/metrics.md).
var (
	stepLabels   = []string{"group", "step"}
	targetLabels = []string{"group", "target"}

	descRequests = prometheus.NewDesc("benchtui_requests_total", "Operations completed in the step's measured phase (requests, statements, events, cycles); after the step, its artifact's requests.", stepLabels, nil)
	descErrors   = prometheus.NewDesc("benchtui_errors_total", "Operations of the step that failed.", stepLabels, nil)
	descDropped  = prometheus.NewDesc("benchtui_dropped_total", "Open-loop arrivals of the step that found no free slot under max_in_flight.", stepLabels, nil)
	descInFlight = prometheus.NewDesc("benchtui_in_flight", "Operations in flight; 0 once the step is done.", stepLabels, nil)
	descRPS      = prometheus.NewDesc("benchtui_throughput_rps", "Operations per second over the last tick (250 ms); after the step, its throughput_rps.", stepLabels, nil)
	descLatency  = prometheus.NewDesc("benchtui_latency_seconds", "Latency from due time of the step's operations so far (those that have one), from the HdrHistogram its artifact keeps; after the step, the artifact's.", stepLabels, nil)
	descP50      = prometheus.NewDesc("benchtui_latency_p50_seconds", "Median latency from due time over the last tick; after the step, the step's. Not for aggregation: use benchtui_latency_seconds.", stepLabels, nil)
	descP99      = prometheus.NewDesc("benchtui_latency_p99_seconds", "99th percentile latency from due time over the last tick; after the step, the step's. Not for aggregation: use benchtui_latency_seconds.", stepLabels, nil)
	descDone     = prometheus.NewDesc("benchtui_step_done", "1 once the step has ended and its figures are final, else 0.", stepLabels, nil)
	descRSS      = prometheus.NewDesc("benchtui_target_rss_bytes", "The watched target's resident set size at its newest sample.", targetLabels, nil)
	descFDs      = prometheus.NewDesc("benchtui_target_open_fds", "The watched target's open file descriptors at its newest sample.", targetLabels, nil)
	descCPUTotal = prometheus.NewDesc("benchtui_target_cpu_seconds_total", "CPU time (user and system) the watched target has used, at its newest sample.", targetLabels, nil)
	descCPU      = prometheus.NewDesc("benchtui_target_cpu_cores", "The watched target's CPU use, in cores, between its last two samples.", targetLabels, nil)
	descBuild    = prometheus.NewDesc("benchtui_build_info", "Always 1; the labels say which benchtui serves the metrics.", []string{"version", "goversion", "revision"}, nil)
)

var allDescs = []*prometheus.Desc{descRequests, descErrors, descDropped, descInFlight, descRPS, descLatency, descP50, descP99,
	descDone, descRSS, descFDs, descCPUTotal, descCPU, descBuild}

var _ prometheus.Collector = (*Exporter)(nil)

// Describe sends the descriptions of every metric the Exporter exposes.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect sends the current figures as constant metrics. The figures are
// copied under the lock; the histograms are read outside it (no snapshot
// waits on a scrape's bucketing).
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	steps := make(map[stepKey]stepFigures, len(e.steps))
	for k, f := range e.steps {
		steps[k] = f
	}
	targets := make(map[targetKey]engine.ProcSample, len(e.targets))
	for k, s := range e.targets {
		targets[k] = s
	}
	e.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(descBuild, prometheus.GaugeValue, 1, e.build.Version, goVersion, e.build.Revision)
	for k, f := range steps {
		collectStep(ch, k, f)
	}
	for k, s := range targets {
		send := func(d *prometheus.Desc, t prometheus.ValueType, v float64) {
			ch <- prometheus.MustNewConstMetric(d, t, v, k.group, k.target)
		}
		send(descRSS, prometheus.GaugeValue, s.RSSMB*(1<<20))
		send(descFDs, prometheus.GaugeValue, float64(s.FDs))
		send(descCPUTotal, prometheus.CounterValue, s.CPUSeconds)
		send(descCPU, prometheus.GaugeValue, s.CPUCores)
	}
}

// collectStep sends the metrics of one step.
func collectStep(ch chan<- prometheus.Metric, k stepKey, f stepFigures) {
	send := func(d *prometheus.Desc, t prometheus.ValueType, v float64) {
		ch <- prometheus.MustNewConstMetric(d, t, v, k.group, k.step)
	}
	send(descRequests, prometheus.CounterValue, float64(f.requests))
	send(descErrors, prometheus.CounterValue, float64(f.errors))
	send(descDropped, prometheus.CounterValue, float64(f.dropped))
	send(descInFlight, prometheus.GaugeValue, float64(f.inFlight))
	send(descRPS, prometheus.GaugeValue, f.rps)
	send(descP50, prometheus.GaugeValue, f.p50MS/1000)
	send(descP99, prometheus.GaugeValue, f.p99MS/1000)
	send(descDone, prometheus.GaugeValue, map[bool]float64{true: 1}[f.done])
	if f.latency != nil {
		b := bucketsOf(f.latency)
		ch <- prometheus.MustNewConstHistogram(descLatency, b.count, b.sumSeconds, b.cumulative, k.group, k.step)
	}
}
