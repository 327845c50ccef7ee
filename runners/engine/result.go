package engine

import (
	"fmt"
	"maps"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/loop"
	"github.com/benchtui/benchtui/runners/plan"
)

// measured returns the active time of the measured phase and the paused
// time within it.
func (st *stepRun) measured() (active, paused time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.measuring {
		return 0, 0
	}
	paused = st.pausedAll
	if !st.pausedAt.IsZero() && st.phase == PhaseMeasure {
		paused += time.Since(st.pausedAt)
	}
	return st.activeLocked(time.Now()), paused
}

func (st *stepRun) snapshot(state State) Snapshot {
	active, paused := st.measured()
	v := st.tally.view(active)
	st.mu.Lock()
	snap := Snapshot{
		GroupID: st.s.group.ID, State: state, Phase: st.phase,
		Step: st.index + 1, Steps: len(st.s.steps), StepLabel: st.label(), Label: st.spec.Label,
		Elapsed: st.activeLocked(time.Now()), Planned: st.planned, Paused: paused,
		Interval: v.last, Total: v.total, TotalHist: v.totalHist, TotalLatency: v.totalCopy, ByName: v.byName, ErrorKinds: v.kinds, Counters: v.counters,
		InFlight: st.env.InFlight(), Series: v.series,
		Events:   append([]artifacts.Event(nil), st.events...),
		Extended: st.extended, SoakLeft: max(0, st.soakLimit()-st.extended),
		Count: st.spec.Iterations + st.spec.PerWorker*int64(st.spec.Load.Workers()),
	}
	st.mu.Unlock()
	st.watched.fill(&snap, st.s)
	st.fillProbes(&snap)
	st.s.mu.Lock()
	snap.Done = append([]artifacts.Step(nil), st.s.results...)
	st.s.mu.Unlock()
	return snap
}

// label is the step's label, with the run for a repeated step.
func (st *stepRun) label() string {
	if st.runs > 1 {
		return fmt.Sprintf("%s · run %d/%d", st.spec.Label, st.run1, st.runs)
	}
	return st.spec.Label
}

// closeInFlight keeps the step's in-flight figures as the measured window
// closes: the most in flight during it and what is in flight now.
func (st *stepRun) closeInFlight() {
	f := st.inFlightNow()
	st.mu.Lock()
	st.inFlightEnd = f
	st.mu.Unlock()
}

// inFlightNow is the step's in-flight figures so far.
func (st *stepRun) inFlightNow() *artifacts.InFlight {
	return &artifacts.InFlight{Max: st.env.InFlightPeak(), End: int64(st.env.InFlight())}
}

// inFlightFigures are the step's in-flight figures for its result: those
// kept when the measured window closed, so far while it is open, nil
// before it opened.
func (st *stepRun) inFlightFigures() *artifacts.InFlight {
	st.mu.Lock()
	measuring, end := st.measuring, st.inFlightEnd
	st.mu.Unlock()
	switch {
	case end != nil:
		return end
	case measuring:
		return st.inFlightNow()
	}
	return nil
}

// result builds the artifact step from the tally after the load stopped.
func (st *stepRun) result(live bool) *artifacts.Step {
	active, paused := st.measured()
	if !live {
		st.mu.Lock()
		if st.measuring {
			active = st.activeLocked(st.stopAt())
		}
		st.mu.Unlock()
		st.tally.final(active)
	}
	t := st.tally
	t.mu.Lock()
	hist, err := artifacts.EncodeHistogram(t.latency)
	if err != nil {
		hist = ""
	}
	res := &artifacts.Step{
		Label: st.spec.Label, Params: maps.Clone(st.spec.Params), Vars: maps.Clone(st.spec.ShownVars),
		DurationS: round3(active.Seconds()), PausedS: round3(paused.Seconds()),
		Requests: t.counts.requests, Errors: t.counts.errors, Dropped: t.counts.dropped,
		ErrorKinds: maps.Clone(t.kinds), ErrorSamples: artifacts.MergeErrorSamples(nil, t.samples), LatencyMS: artifacts.PercentilesOf(t.latency),
		ServiceMS: artifacts.PercentilesOf(t.service), Histogram: hist,
		Series: t.series.points(), Counters: maps.Clone(t.counters),
	}
	res.Drained, res.Samples = t.drained.requests, t.blocks.samples()
	res.InFlight = st.inFlightFigures()
	if t.hlog != nil {
		res.IntervalLog = t.hlog.snapshot(time.Now())
	}
	res.Counters = withDeclared(res.Counters, st.s.kind.CounterNames(st.s.group))
	if late, ok := res.Counters[loop.CounterLate]; ok {
		res.Late = late
		delete(res.Counters, loop.CounterLate)
	}
	if secs := active.Seconds(); secs > 0 {
		inWindow := res.Requests - res.Drained
		res.ThroughputRPS = round3(float64(inWindow) / secs)
		res.OKRPS = round3(float64(inWindow-(res.Errors-t.drained.errors)) / secs)
		if st.env.Load.OpenLoop() {
			res.OfferedRPS = round3(float64(res.Requests+res.Dropped) / secs)
		}
	}
	if st.env.Shard.Active() {
		res.Histograms = artifacts.TimingHistograms(t.service, t.extra)
	}
	if len(t.extra) > 0 {
		res.ExtraMS = map[string]artifacts.Percentiles{}
		for k, h := range t.extra {
			res.ExtraMS[k] = artifacts.PercentilesOf(h)
		}
	}
	res.ByName, res.Status = namedSteps(t.named), mapOrNil(t.status)
	for name, b := range t.namedBlocks {
		n := res.ByName[name]
		n.Samples = b.samples()
		res.ByName[name] = n
	}
	t.mu.Unlock()
	st.watched.summarize(res, st)
	st.probeFigures(res)
	st.windowFigures(res)
	st.serverFigures(res)
	st.mu.Lock()
	res.Events = append([]artifacts.Event{}, st.events...)
	st.mu.Unlock()
	res.Checks = thresholdChecks(st.s.group.Thresholds, res, st.s.checkContext())
	for _, c := range res.Checks {
		if !c.OK {
			res.Events = append(res.Events, artifacts.Event{T: res.DurationS, Kind: artifacts.EventThresholdFailed, Note: c.Name})
		}
	}
	return res
}

// stopAt is when the measured clock stopped: now, since the result is
// built right after the load drained. Kept apart so the drain time is not
// counted as measured time.
func (st *stepRun) stopAt() time.Time {
	if !st.drainAt.IsZero() {
		return st.drainAt
	}
	return time.Now()
}

// partialResult is the running step's figures so far, for a mid-run export.
func (st *stepRun) partialResult() artifacts.Step {
	return *st.result(true)
}

// thresholdChecks judges a step against the thresholds that are set; at
// is what its checks whose limits are other figures read.
func thresholdChecks(th plan.Thresholds, s *artifacts.Step, at CheckContext) []artifacts.Check {
	checks := []artifacts.Check{}
	lat := func(name string, limit *plan.Duration, got float64) {
		if limit != nil {
			ms := float64(limit.D()) / float64(time.Millisecond)
			checks = append(checks, artifacts.Check{Name: fmt.Sprintf("%s <= %s", name, limit.D()), OK: got <= ms, Value: got})
		}
	}
	lat("p50", th.P50, s.LatencyMS.P50)
	lat("p90", th.P90, s.LatencyMS.P90)
	if th.P95 != nil {
		checks = append(checks, histogramCheck("p95", th.P95, s))
	}
	lat("p99", th.P99, s.LatencyMS.P99)
	lat("p999", th.P999, s.LatencyMS.P999)
	lat("max", th.Max, s.LatencyMS.Max)
	if th.ErrorRate != nil {
		rate := 0.0
		if s.Requests > 0 {
			rate = float64(s.Errors) / float64(s.Requests)
		}
		checks = append(checks, artifacts.Check{Name: fmt.Sprintf("error_rate <= %g", *th.ErrorRate), OK: rate <= *th.ErrorRate, Value: rate})
	}
	if th.MinRPS != nil {
		checks = append(checks, artifacts.Check{Name: fmt.Sprintf("rps >= %g", *th.MinRPS), OK: s.ThroughputRPS >= *th.MinRPS, Value: s.ThroughputRPS})
	}
	if th.Dropped != nil {
		checks = append(checks, artifacts.Check{Name: fmt.Sprintf("dropped <= %d", *th.Dropped), OK: s.Dropped <= *th.Dropped, Value: float64(s.Dropped)})
	}
	return append(checks, figureChecks(th.Checks, s, at)...)
}

// histogramCheck judges the step's percentile name (e.g. "p95") against
// limit, reading it from the step's histogram as a thresholds.checks
// figure is read; without a histogram the check fails, saying why.
func histogramCheck(name string, limit *plan.Duration, s *artifacts.Step) artifacts.Check {
	c := artifacts.Check{Name: fmt.Sprintf("%s <= %s", name, limit.D())}
	fig, err := artifacts.ParseFigure(name)
	if err == nil {
		c.Value, err = fig.Of(s)
	}
	if err != nil {
		c.Note = err.Error()
		return c
	}
	c.OK = c.Value <= float64(limit.D())/float64(time.Millisecond)
	return c
}

// namedSteps are the artifact's figures of each named request.
func namedSteps(named map[string]*runners.Named) map[string]artifacts.NamedStep {
	if len(named) == 0 {
		return nil
	}
	out := make(map[string]artifacts.NamedStep, len(named))
	for name, n := range named {
		hist, err := artifacts.EncodeHistogram(n.Latency)
		if err != nil {
			hist = ""
		}
		out[name] = artifacts.NamedStep{Requests: n.Requests, Errors: n.Errors, Dropped: n.Dropped, ErrorKinds: maps.Clone(n.Kinds),
			LatencyMS: artifacts.PercentilesOf(n.Latency), Histogram: hist}
	}
	return out
}

// mapOrNil is a copy of m, nil when m is empty (left out of the JSON).
func mapOrNil(m map[string]int64) map[string]int64 {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// withDeclared adds to counters each of names it lacks, at 0: the
// counters the group's runner kind declares show in every step, zeros
// too (runners.Kind.Counters).
func withDeclared(counters map[string]int64, names []string) map[string]int64 {
	for _, n := range names {
		if _, ok := counters[n]; !ok {
			if counters == nil {
				counters = map[string]int64{}
			}
			counters[n] = 0
		}
	}
	return counters
}
