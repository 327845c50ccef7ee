package engine

import (
	"context"
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// MaxRepeat bounds `repeat:` and `run --count`: each repetition is one
// sample, and a comparison needs far fewer.
const MaxRepeat = plan.MaxRepeat

// repetition is one run of a step: its result and its tally, whose
// histograms the merged step takes over.
type repetition struct {
	res   *artifacts.Step
	tally *tally
	found []artifacts.Check // the runner's and hooks' checks
}

// runStep runs step i n times (the group's repeat, or the session's
// count); one run is the step's result as it is, several are merged into
// one step whose samples are the runs. A stopped run ends the repetitions.
func (s *Session) runStep(ctx context.Context, runner runners.Runner, i int, spec plan.Step) (*artifacts.Step, error) {
	n := s.repeat()
	var reps []repetition
	for r := range n {
		if r > 0 && (s.stopping() || ctx.Err() != nil) {
			break
		}
		st := newStepRun(s, runner, i, spec)
		st.run1, st.runs = r+1, n
		s.setCurrent(st)
		res, err := st.run(ctx)
		if err != nil && res != nil && len(reps) == 0 {
			return res, err // a failed setup: the step's checks say so
		}
		if err != nil {
			return s.merged(reps), err
		}
		reps = append(reps, repetition{res: res, tally: st.tally, found: st.found})
		if st.wasCut() {
			break
		}
	}
	if n == 1 {
		return reps[0].res, nil
	}
	return s.merged(reps), nil
}

// repeat is how many times each step runs: the session's count, else the
// group's repeat, else once. A runner that makes its target exit
// (shutdown) runs once: there is no target for a second run.
func (s *Session) repeat() int {
	switch {
	case s.kind.TargetExits:
		return 1
	case s.opts.Count > 0:
		return min(s.opts.Count, MaxRepeat)
	case s.group.Repeat > 0:
		return s.group.Repeat
	}
	return 1
}

// merged folds the repetitions of a step into one result, nil without any.
func (s *Session) merged(reps []repetition) *artifacts.Step {
	if len(reps) == 0 {
		return nil
	}
	m := mergeRepetitions(reps, s.repeat())
	m.Checks = thresholdChecks(s.group.Thresholds, m, s.checkContext())
	for _, c := range m.Checks {
		if !c.OK {
			m.Events = append(m.Events, artifacts.Event{T: m.DurationS, Kind: artifacts.EventThresholdFailed, Note: c.Name})
		}
	}
	for k, r := range reps {
		for _, c := range r.found {
			c.Name = fmt.Sprintf("%s (run %d)", c.Name, k+1)
			m.Checks = append(m.Checks, c)
		}
	}
	return m
}

// mergeRepetitions adds the runs' counts and times, merges their
// histograms (so percentiles are exact over every run), lays their series
// and events end to end, and keeps each run's figures as one sample of
// kind "runs". The target's and benchtui's own figures, and the runner's
// extra figures, are the last run's.
func mergeRepetitions(reps []repetition, planned int) *artifacts.Step {
	m := *reps[len(reps)-1].res
	m.Requests, m.Errors, m.Dropped, m.Drained, m.Late = 0, 0, 0, 0, 0
	m.DurationS, m.PausedS = 0, 0
	m.ErrorKinds, m.Counters, m.ErrorSamples = map[string]int64{}, map[string]int64{}, nil
	m.Series, m.Events, m.IntervalLog = nil, nil, nil
	m.Samples = &artifacts.Samples{Of: artifacts.SamplesOfRuns, Values: map[string][]float64{}}
	lat, svc, extra := artifacts.NewHistogram(), artifacts.NewHistogram(), map[string]*hdrhistogram.Histogram{}
	named, status := map[string]*runners.Named{}, map[string]int64{}
	var drainedErrs int64
	for k, r := range reps {
		mergeTally(lat, svc, extra, r.tally)
		mergeNamed(named, status, r.tally)
		drainedErrs += r.tally.drained.errors
		addRun(&m, r.res, k+1, planned)
	}
	m.DurationS, m.PausedS = round3(m.DurationS), round3(m.PausedS)
	m.LatencyMS, m.ServiceMS = artifacts.PercentilesOf(lat), artifacts.PercentilesOf(svc)
	if h, err := artifacts.EncodeHistogram(lat); err == nil {
		m.Histogram = h
	}
	m.ByName, m.Status = namedSteps(named), mapOrNil(status)
	if m.Histograms != nil { // a shard's: the runs' merged timings
		m.Histograms = artifacts.TimingHistograms(svc, extra)
	}
	m.ExtraMS = nil
	for name, h := range extra {
		if m.ExtraMS == nil {
			m.ExtraMS = map[string]artifacts.Percentiles{}
		}
		m.ExtraMS[name] = artifacts.PercentilesOf(h)
	}
	m.ThroughputRPS, m.OKRPS, m.OfferedRPS = 0, 0, 0
	if m.DurationS > 0 {
		inWindow := m.Requests - m.Drained
		m.ThroughputRPS = round3(float64(inWindow) / m.DurationS)
		m.OKRPS = round3(float64(inWindow-(m.Errors-drainedErrs)) / m.DurationS)
		if reps[0].res.OfferedRPS > 0 {
			m.OfferedRPS = round3(float64(m.Requests+m.Dropped) / m.DurationS)
		}
	}
	m.Series = thinned(m.Series)
	return &m
}

// mergeTally merges a run's histograms into the step's.
func mergeTally(lat, svc *hdrhistogram.Histogram, extra map[string]*hdrhistogram.Histogram, t *tally) {
	t.mu.Lock()
	defer t.mu.Unlock()
	lat.Merge(t.latency)
	svc.Merge(t.service)
	for name, h := range t.extra {
		if extra[name] == nil {
			extra[name] = artifacts.NewHistogram()
		}
		extra[name].Merge(h)
	}
}

// mergeNamed adds a run's figures by name and by status to the step's.
func mergeNamed(named map[string]*runners.Named, status map[string]int64, t *tally) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, n := range t.named {
		if named[k] == nil {
			named[k] = runners.NewNamed()
		}
		named[k].Add(n)
	}
	for k, n := range t.status {
		status[k] += n
	}
}

// addRun adds run k's counts, series, events and sample to m.
func addRun(m, r *artifacts.Step, k, planned int) {
	offset := m.DurationS
	m.Requests += r.Requests
	m.Errors += r.Errors
	m.Dropped += r.Dropped
	m.Drained += r.Drained
	m.Late += r.Late
	m.InFlight = maxInFlight(m.InFlight, r.InFlight, k == 1)
	m.DurationS += r.DurationS
	m.PausedS += r.PausedS
	addCounts(m.ErrorKinds, r.ErrorKinds)
	m.ErrorSamples = artifacts.MergeErrorSamples(m.ErrorSamples, r.ErrorSamples)
	addCounts(m.Counters, r.Counters)
	for _, p := range r.Series {
		p.T = round3(p.T + offset)
		m.Series = append(m.Series, p)
	}
	m.Events = append(m.Events, artifacts.Event{T: round3(offset), Kind: artifacts.EventNote, Note: fmt.Sprintf("run %d of %d", k, planned)})
	for _, e := range r.Events {
		e.T = round3(e.T + offset)
		m.Events = append(m.Events, e)
	}
	addSample(m.Samples, r)
	switch {
	case r.IntervalLog == nil:
	case m.IntervalLog == nil:
		m.IntervalLog = r.IntervalLog.Clone()
	default:
		m.IntervalLog.Append(r.IntervalLog) // absolute times: the runs follow each other
	}
}

func addCounts(dst, src map[string]int64) {
	for k, n := range src {
		dst[k] += n
	}
}

// addSample appends a run's figures as one sample of each.
func addSample(s *artifacts.Samples, r *artifacts.Step) {
	rate := 0.0
	if r.Requests > 0 {
		rate = float64(r.Errors) / float64(r.Requests)
	}
	l := r.LatencyMS
	for k, v := range map[string]float64{
		artifacts.SampleRPS: r.ThroughputRPS, artifacts.SampleOKRPS: r.OKRPS, artifacts.SampleErrorRate: rate,
		artifacts.SampleP50: l.P50, artifacts.SampleP90: l.P90, artifacts.SampleP99: l.P99,
		artifacts.SampleP999: l.P999, artifacts.SampleMax: l.Max, artifacts.SampleMean: l.Mean,
	} {
		s.Values[k] = append(s.Values[k], v)
	}
}

// thinned bounds the runs' series laid end to end as one step's series is.
func thinned(pts []artifacts.Point) []artifacts.Point {
	s := series{pts: pts, width: 0.5}
	for len(s.pts) >= MaxSeriesPoints {
		s.thin()
	}
	return s.pts
}

// maxInFlight is the in-flight figures of a repeated step: the most of
// any run, and the end of the last run (r). first says m holds no run yet.
func maxInFlight(m, r *artifacts.InFlight, first bool) *artifacts.InFlight {
	if r == nil {
		return m
	}
	out := *r
	if !first && m != nil {
		out.Max = max(out.Max, m.Max)
	}
	return &out
}
