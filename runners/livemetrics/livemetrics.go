// Package livemetrics serves the figures of a run's sessions while they
// run, in the Prometheus exposition format, so a Grafana beside the
// console sees the numbers the console shows.
//
// An Exporter is an engine.Observer: it keeps, per group and step, the
// figures of the newest snapshot (while the step runs) or of the step's
// result (once it is done, the figures its artifact holds), and per
// watched target its newest sample. A scrape reads them under a lock and
// builds constant metrics from them (a custom prometheus.Collector on a
// registry of its own), so the load never waits for a scrape. The metric
// names are listed in docs/metrics.md.
package livemetrics

import (
	"sync"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
)

// stepKey names a step of a group.
type stepKey struct{ group, step string }

// stepFigures are what the metrics of one step show.
type stepFigures struct {
	requests, errors, dropped int64
	inFlight                  int
	rps                       float64
	p50MS, p99MS              float64
	done                      bool
}

// targetKey names a watched target of a group.
type targetKey struct{ group, target string }

// Exporter keeps the newest figures of every session it observes.
type Exporter struct {
	mu      sync.Mutex
	steps   map[stepKey]stepFigures
	targets map[targetKey]engine.ProcSample
}

var _ engine.Observer = (*Exporter)(nil)

// New returns an Exporter with no figures yet.
func New() *Exporter {
	return &Exporter{steps: map[stepKey]stepFigures{}, targets: map[targetKey]engine.ProcSample{}}
}

// Snapshot takes a running step's figures: its counts so far, and the last
// tick's rate and latency. A step already done keeps its result's.
func (e *Exporter) Snapshot(s engine.Snapshot) {
	if s.Label == "" {
		return // a failed session's snapshot names no step
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	k := stepKey{s.GroupID, s.Label}
	if !e.steps[k].done {
		e.steps[k] = stepFigures{requests: s.Total.Requests, errors: s.Total.Errors, dropped: s.Total.Dropped,
			inFlight: s.InFlight, rps: s.Interval.RPS, p50MS: s.Interval.P50, p99MS: s.Interval.P99}
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
// artifact's figures (the whole step's throughput and percentiles, none
// in flight).
func (e *Exporter) Step(group string, s *artifacts.Step) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.steps[stepKey{group, s.Label}] = stepFigures{requests: s.Requests, errors: s.Errors, dropped: s.Dropped,
		rps: s.ThroughputRPS, p50MS: s.LatencyMS.P50, p99MS: s.LatencyMS.P99, done: true}
}
