// Package livemetrics serves the figures of a run's sessions while they
// run, in the Prometheus exposition format (OpenMetrics when the scraper
// asks for it), so a Grafana beside the console sees the numbers the
// console shows.
//
// An Exporter is an engine.Observer: it keeps, per group and step, the
// figures of the newest snapshot (while the step runs) or of the step's
// result (once it is done, the figures its artifact holds), and per
// watched target its newest sample. A scrape reads them under a lock and
// builds constant metrics from them (a custom prometheus.Collector on a
// registry of its own), so the load never waits for a scrape. Latency is
// a histogram read from the step's HdrHistogram, the one its artifact
// keeps (histogram.go). The metric names are listed in docs/metrics.md.
package livemetrics

import (
	"runtime"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
)

// stepKey names a step of a group.
type stepKey struct{ group, step string }

// stepFigures are what the metrics of one step show. latency is the
// step's histogram so far (µs), nil before it has one; it is never
// written once kept, so a scrape reads it outside the lock.
type stepFigures struct {
	requests, errors, dropped int64
	inFlight                  int
	rps                       float64
	p50MS, p99MS              float64
	latency                   *hdrhistogram.Histogram
	done                      bool
}

// targetKey names a watched target of a group.
type targetKey struct{ group, target string }

// Build says which benchtui serves the metrics (benchtui_build_info).
type Build struct {
	// Version is the tool's version, Revision the VCS revision it was
	// built from ("" when the build has none).
	Version, Revision string
}

// Exporter keeps the newest figures of every session it observes.
type Exporter struct {
	build   Build
	mu      sync.Mutex
	steps   map[stepKey]stepFigures
	targets map[targetKey]engine.ProcSample
}

var _ engine.LatencyObserver = (*Exporter)(nil)

// New returns an Exporter of build with no figures yet.
func New(build Build) *Exporter {
	return &Exporter{build: build, steps: map[stepKey]stepFigures{}, targets: map[targetKey]engine.ProcSample{}}
}

// goVersion is the Go release benchtui was built with.
var goVersion = runtime.Version()

// ObservesLatency asks the engine for each running step's latency
// histogram in its snapshots.
func (e *Exporter) ObservesLatency() bool { return true }

// Snapshot takes a running step's figures: its counts and latency
// histogram so far, and the last tick's rate and latency. A step already
// done keeps its result's.
func (e *Exporter) Snapshot(s engine.Snapshot) {
	if s.Label == "" {
		return // a failed session's snapshot names no step
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	k := stepKey{s.GroupID, s.Label}
	if !e.steps[k].done {
		e.steps[k] = stepFigures{requests: s.Total.Requests, errors: s.Total.Errors, dropped: s.Total.Dropped,
			inFlight: s.InFlight, rps: s.Interval.RPS, p50MS: s.Interval.P50, p99MS: s.Interval.P99, latency: s.TotalLatency}
	}
	if s.Target != nil {
		e.targets[targetKey{s.GroupID, s.TargetName}] = *s.Target
	}
	for _, o := range s.Others {
		if o.ProcSample != nil {
			e.targets[targetKey{s.GroupID, o.Name}] = *o.ProcSample
		}
	}
}

// Step takes a finished step's result: from then on its metrics are the
// artifact's figures (the whole step's throughput, percentiles and
// histogram, none in flight).
func (e *Exporter) Step(group string, s *artifacts.Step) {
	hist, err := artifacts.DecodeHistogram(s.Histogram)
	if err != nil {
		hist = nil // a result without one (a failed step): no histogram
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.steps[stepKey{group, s.Label}] = stepFigures{requests: s.Requests, errors: s.Errors, dropped: s.Dropped,
		rps: s.ThroughputRPS, p50MS: s.LatencyMS.P50, p99MS: s.LatencyMS.P99, latency: hist, done: true}
}
