package merge

import (
	"fmt"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/benchtui/benchtui/artifacts"
)

// mergeSteps merges the shards' steps, k-th with k-th; the merge has as
// many steps as every shard finished.
func mergeSteps(parts []artifacts.ShardFile, opts Options) ([]artifacts.Step, error) {
	n := maxSteps(parts)
	for _, p := range parts {
		n = min(n, len(p.A.Steps))
	}
	steps := make([]artifacts.Step, 0, n)
	for k := range n {
		s, err := mergeStep(parts, k, steps, opts)
		if err != nil {
			return nil, err
		}
		steps = append(steps, *s)
	}
	return steps, nil
}

// timings holds a step's histograms while shards are merged into it.
type timings struct {
	latency, service *hdrhistogram.Histogram
	extra            map[string]*hdrhistogram.Histogram
	named            map[string]*hdrhistogram.Histogram
}

// mergeStep merges the k-th step of every shard; earlier are the merged
// steps before it.
func mergeStep(parts []artifacts.ShardFile, k int, earlier []artifacts.Step, opts Options) (*artifacts.Step, error) {
	first := parts[0].A.Steps[k]
	m := artifacts.Step{
		Label: first.Label, Params: first.Params, Vars: first.Vars,
		Target: first.Target, Targets: first.Targets, TargetsSum: first.TargetsSum,
		Probes: first.Probes, Profiles: first.Profiles, Extra: first.Extra,
		Series: []artifacts.Point{}, Checks: []artifacts.Check{}, Events: []artifacts.Event{},
	}
	t := timings{latency: artifacts.NewHistogram(), service: artifacts.NewHistogram(), extra: map[string]*hdrhistogram.Histogram{}, named: map[string]*hdrhistogram.Histogram{}}
	for _, p := range parts {
		s := &p.A.Steps[k]
		if s.Label != first.Label {
			return nil, fmt.Errorf("merging: %s: step %d is %q, shard 0's is %q", p.Path, k+1, s.Label, first.Label)
		}
		var sum sums
		if err := t.add(s, &sum); err != nil {
			return nil, fmt.Errorf("merging: %s: step %s: %w", p.Path, s.Label, err)
		}
		if addCounts(&m, s, &sum); sum.err != nil {
			return nil, fmt.Errorf("merging: %s: step %s: %w", p.Path, s.Label, sum.err)
		}
		m.Checks = append(m.Checks, ownChecks(p.A.Shard.Index, s, earlier, opts.Judge)...)
		m.Events = append(m.Events, shardEvents(p.A.Shard.Index, s.Events)...)
	}
	if err := t.finish(&m); err != nil {
		return nil, err
	}
	samples, err := mergeSamples(parts, k)
	if err != nil {
		return nil, err
	}
	m.Samples = samples
	log, series, ok, err := mergeIntervals(parts, k)
	if err != nil {
		return nil, err
	}
	if m.Series, m.IntervalLog = series, log; !ok {
		if m.Series, err = mergeSeries(parts, k); err != nil {
			return nil, err
		}
	}
	if opts.Judge != nil {
		m.Checks = append(opts.Judge(&m, earlier), m.Checks...)
	}
	return &m, nil
}

// add merges one shard's histograms; a missing one is an error, since
// the merge would not be exact, and so is one whose counts overflow sum's.
func (t *timings) add(s *artifacts.Step, sum *sums) error {
	if err := mergeEncoded(t.latency, s.Histogram, "histogram", sum); err != nil {
		return err
	}
	if err := mergeEncoded(t.service, s.Histograms[artifacts.HistService], "histograms."+artifacts.HistService, sum); err != nil {
		return err
	}
	for name := range s.ExtraMS {
		key := artifacts.HistExtraPrefix + name
		if t.extra[name] == nil {
			t.extra[name] = artifacts.NewHistogram()
		}
		if err := mergeEncoded(t.extra[name], s.Histograms[key], "histograms."+key, sum); err != nil {
			return err
		}
	}
	for name, n := range s.ByName {
		if t.named[name] == nil {
			t.named[name] = artifacts.NewHistogram()
		}
		if err := mergeEncoded(t.named[name], n.Histogram, "by_name."+name+".histogram", sum); err != nil {
			return err
		}
	}
	return nil
}

// mergeEncoded decodes enc and merges it into h; field names it. A sum of
// counts that overflows is sum's error.
func mergeEncoded(h *hdrhistogram.Histogram, enc, field string, sum *sums) error {
	if enc == "" {
		return fmt.Errorf("%s: missing (a shard's artifact has every timing's histogram)", field)
	}
	d, err := artifacts.DecodeHistogram(enc)
	if err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	sum.merge(field, h, d)
	return sum.err
}

// finish reads the merged step's percentiles from its merged histograms.
func (t *timings) finish(m *artifacts.Step) error {
	m.LatencyMS, m.ServiceMS = artifacts.PercentilesOf(t.latency), artifacts.PercentilesOf(t.service)
	var err error
	if m.Histogram, err = artifacts.EncodeHistogram(t.latency); err != nil {
		return err
	}
	m.Histograms = artifacts.TimingHistograms(t.service, t.extra)
	for name, h := range t.extra {
		if m.ExtraMS == nil {
			m.ExtraMS = map[string]artifacts.Percentiles{}
		}
		m.ExtraMS[name] = artifacts.PercentilesOf(h)
	}
	for name, h := range t.named {
		n := m.ByName[name]
		n.LatencyMS = artifacts.PercentilesOf(h)
		if n.Histogram, err = artifacts.EncodeHistogram(h); err != nil {
			return err
		}
		m.ByName[name] = n
	}
	return nil
}

// addCounts adds a shard step's counts and rates to m's; a sum that
// overflows is sum's error. The shards ran on one clock, so the merged
// duration is the longest shard's.
func addCounts(m, s *artifacts.Step, sum *sums) {
	m.DurationS = max(m.DurationS, s.DurationS)
	m.Requests = sum.int("requests", m.Requests, s.Requests)
	m.Errors = sum.int("errors", m.Errors, s.Errors)
	m.Dropped = sum.int("dropped", m.Dropped, s.Dropped)
	m.Drained = sum.int("drained", m.Drained, s.Drained)
	m.Late = sum.int("late", m.Late, s.Late)
	if s.InFlight != nil {
		in := artifacts.InFlight{}
		if m.InFlight != nil {
			in = *m.InFlight
		}
		m.InFlight = &artifacts.InFlight{Max: sum.int("in_flight.max", in.Max, s.InFlight.Max), End: sum.int("in_flight.end", in.End, s.InFlight.End)}
	}
	m.ThroughputRPS = sum.rate("throughput_rps", m.ThroughputRPS, s.ThroughputRPS)
	m.OKRPS = sum.rate("ok_rps", m.OKRPS, s.OKRPS)
	m.OfferedRPS = sum.rate("offered_rps", m.OfferedRPS, s.OfferedRPS)
	m.ErrorKinds = sum.ints("error_kinds", m.ErrorKinds, s.ErrorKinds)
	m.ErrorSamples = artifacts.MergeErrorSamples(m.ErrorSamples, s.ErrorSamples)
	m.Status = sum.ints("status", m.Status, s.Status)
	m.Counters = sum.ints("counters", m.Counters, s.Counters)
	for name, n := range s.ByName {
		if m.ByName == nil {
			m.ByName = map[string]artifacts.NamedStep{}
		}
		got, at := m.ByName[name], "by_name."+name
		got.Requests = sum.int(at+".requests", got.Requests, n.Requests)
		got.Errors = sum.int(at+".errors", got.Errors, n.Errors)
		got.Dropped = sum.int(at+".dropped", got.Dropped, n.Dropped)
		got.ErrorKinds = sum.ints(at+".error_kinds", got.ErrorKinds, n.ErrorKinds)
		m.ByName[name] = got
	}
}

// ownChecks are a shard step's checks other than its threshold checks
// (judged again on the merge), named after their shard.
func ownChecks(index int, s *artifacts.Step, earlier []artifacts.Step, judge func(*artifacts.Step, []artifacts.Step) []artifacts.Check) []artifacts.Check {
	skip := map[string]bool{}
	if judge != nil {
		for _, c := range judge(s, earlier) {
			skip[c.Name] = true
		}
	}
	var out []artifacts.Check
	for _, c := range s.Checks {
		if !skip[c.Name] {
			c.Name = fmt.Sprintf("shard %d: %s", index, c.Name)
			out = append(out, c)
		}
	}
	return out
}

// shardEvents are a shard step's events, their notes naming the shard;
// threshold_failed events are left out (the merge is judged anew).
func shardEvents(index int, events []artifacts.Event) []artifacts.Event {
	var out []artifacts.Event
	for _, e := range events {
		if e.Kind == artifacts.EventThresholdFailed {
			continue
		}
		e.Note = strings.TrimSpace(fmt.Sprintf("shard %d: %s", index, e.Note))
		out = append(out, e)
	}
	return out
}
