package engine

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/probe"
)

// EmbeddedDSN is implemented by a runner that started a database of its
// own (pgload's `dsn: embedded`): a SQL probe with `dsn: embedded` reads
// that database.
type EmbeddedDSN interface {
	EmbeddedDSN() string
}

// startProbes starts reading the group's probes when the measured phase
// begins: a warmup is not read (its backlog is not the step's), and
// neither is a pause (its reads would all stand at one instant of active
// time).
func (st *stepRun) startProbes(ctx context.Context) {
	if len(st.s.group.Probes) == 0 {
		return
	}
	opts := probe.Options{Redact: st.s.plan.Redact, Clock: st.probeClock}
	if e, ok := st.runner.(EmbeddedDSN); ok {
		opts.EmbeddedDSN = e.EmbeddedDSN()
	}
	set := probe.Start(ctx, st.s.group.Probes, opts)
	st.mu.Lock()
	st.probes = set
	st.mu.Unlock()
}

// probeClock is the active time of the measured phase; ok is false
// outside it and while paused.
func (st *stepRun) probeClock() (time.Duration, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.phase != PhaseMeasure || !st.pausedAt.IsZero() {
		return 0, false
	}
	return st.activeLocked(time.Now()), true
}

// stopProbes ends the reads when the measured window closes, and notes
// each probe whose reads failed, with its last (redacted) error.
func (st *stepRun) stopProbes() {
	st.mu.Lock()
	set := st.probes
	st.mu.Unlock()
	stats, errs := set.Stop()
	for _, p := range st.s.group.Probes {
		if msg, ok := errs[p.Name]; ok {
			s := stats[p.Name]
			st.event(artifacts.EventNote, fmt.Sprintf("probe %s: %d of %d reads failed; last: %s", p.Name, s.Errors, s.Errors+s.Samples, msg))
		}
	}
}

// probeFigures puts the probes' figures into a step's result.
func (st *stepRun) probeFigures(res *artifacts.Step) {
	st.mu.Lock()
	set := st.probes
	st.mu.Unlock()
	res.Probes = set.Stats()
	if g := st.s.group; g.Soak != nil && g.Soak.ExtendWhileRising != nil {
		rule := g.Soak.ExtendWhileRising
		if ps, ok := res.Probes[rule.Series]; ok {
			if perMin, reads := set.TailSlope(rule.Series, rule.SeriesWindow().D()); reads >= minSlopeSamples && !math.IsNaN(perMin) {
				ps.TailSlopePerMin = &perMin
				res.Probes[rule.Series] = ps
			}
		}
	}
}

// fillProbes puts the probes' figures so far into a snapshot.
func (st *stepRun) fillProbes(snap *Snapshot) {
	st.mu.Lock()
	set := st.probes
	st.mu.Unlock()
	snap.Probes = set.Live()
}
