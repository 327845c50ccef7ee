package artifacts

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
)

// Bounds of the figures a loaded artifact may hold. Anything outside them
// is a damaged or hostile file, refused with the field that is wrong, so
// that `report` and `compare` never print nonsense.
const (
	// MaxLatencyMS bounds every latency figure: an hour, far above the
	// histogram's highest trackable value (HistMaxUS, 60 s), which the
	// engine clamps to.
	MaxLatencyMS = 3_600_000.0
	// MaxStepSeconds bounds a step's measured and paused time: a year.
	MaxStepSeconds = 366 * 24 * 3600.0
)

// LoadsRunner is the group runner of an artifact whose group ran several
// loads (`loads:`): its by_name has an entry per load, and one per named
// request of a load (LOAD/NAME) within it.
const LoadsRunner = "loads"

// checker walks an artifact and keeps the first figure out of range, with
// its JSON path ("steps[2].latency_ms.p99").
type checker struct {
	err error
	// loads: the artifact's group ran several loads (runner "loads"),
	// whose named requests are parts of them in by_name (LOAD/NAME).
	loads bool
}

func (c *checker) fail(path, format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
}

// count wants a count: never negative.
func (c *checker) count(path string, v int64) {
	if v < 0 {
		c.fail(path, "%d out of range: a count is never negative", v)
	}
}

// atMost wants count v at most the count limit at limitPath.
func (c *checker) atMost(path string, v int64, limitPath string, limit int64) {
	if v > limit {
		c.fail(path, "%d out of range: more than %s (%d)", v, limitPath, limit)
	}
}

// within wants v finite and in [lo, hi].
func (c *checker) within(path string, v, lo, hi float64) {
	if math.IsNaN(v) || v < lo || v > hi {
		c.fail(path, "%v out of range [%v, %v]", v, lo, hi)
	}
}

// nonNeg wants v finite and not negative.
func (c *checker) nonNeg(path string, v float64) { c.within(path, v, 0, math.MaxFloat64) }

// finite wants v finite (a slope may be negative).
func (c *checker) finite(path string, v float64) {
	c.within(path, v, -math.MaxFloat64, math.MaxFloat64)
}

// latency wants a latency in milliseconds.
func (c *checker) latency(path string, v float64) { c.within(path, v, 0, MaxLatencyMS) }

func (c *checker) percentiles(path string, p Percentiles) {
	for _, f := range []struct {
		name string
		v    float64
	}{{"p50", p.P50}, {"p90", p.P90}, {"p99", p.P99}, {"p999", p.P999}, {"max", p.Max}, {"mean", p.Mean}} {
		c.latency(path+"."+f.name, f.v)
	}
}

// check reports the first figure of a that no benchtui writes, naming its
// field: a count below zero or above what contains it, a latency, time or
// rate that is negative or beyond its bound, two steps of one label, a
// histogram that does not decode, samples of an unknown kind. Fields an
// artifact lacks (one older than them) are zero, and fine.
func check(a *Artifact) error {
	c := &checker{loads: a.Group.Runner == LoadsRunner}
	c.count("run.host.cpus", int64(a.Run.Host.CPUs))
	seen := make(map[string]int, len(a.Steps))
	for i := range a.Steps {
		path := fmt.Sprintf("steps[%d]", i)
		if j, dup := seen[a.Steps[i].Label]; dup {
			c.fail(path+".label", "%q repeats steps[%d]: one step per label", a.Steps[i].Label, j)
		}
		seen[a.Steps[i].Label] = i
		c.step(path, &a.Steps[i])
		if c.err != nil {
			return c.err
		}
	}
	c.texts("", reflect.ValueOf(a).Elem())
	return c.err
}

// step checks one step's figures.
func (c *checker) step(path string, s *Step) {
	for _, k := range sortedKeys(s.Params) {
		c.finite(path+".params."+k, s.Params[k])
	}
	c.within(path+".duration_s", s.DurationS, 0, MaxStepSeconds)
	c.within(path+".paused_s", s.PausedS, 0, MaxStepSeconds)
	c.counts(path, s)
	c.nonNeg(path+".throughput_rps", s.ThroughputRPS)
	c.within(path+".ok_rps", s.OKRPS, 0, s.ThroughputRPS)
	c.nonNeg(path+".offered_rps", s.OfferedRPS)
	c.percentiles(path+".latency_ms", s.LatencyMS)
	c.percentiles(path+".service_ms", s.ServiceMS)
	for _, k := range sortedKeys(s.ExtraMS) {
		c.percentiles(path+".extra_ms."+k, s.ExtraMS[k])
	}
	c.histogram(path, s)
	c.hlogName(path+".hlog", s.HLog)
	c.byName(path, s)
	c.windows(path, s)
	c.target(path+".target", s.Target)
	c.target(path+".self", s.Self)
	for _, name := range s.TargetNames() {
		c.target(path+".targets."+name, s.Targets[name])
	}
	c.target(path+".targets_sum", s.TargetsSum)
	c.samples(path+".samples", s.Samples)
	c.series(path+".series", s.Series)
	for j, ck := range s.Checks {
		c.finite(fmt.Sprintf("%s.checks[%d].value", path, j), ck.Value)
		c.within(fmt.Sprintf("%s.checks[%d].time_to_pass_s", path, j), ck.TimeToPassS, 0, MaxStepSeconds)
		for k, l := range ck.Limits {
			c.finite(fmt.Sprintf("%s.checks[%d].limits[%d]", path, j, k), l)
		}
		if len(ck.Limits) > 2 {
			c.fail(fmt.Sprintf("%s.checks[%d].limits", path, j), "%d limits: a check has one, or two for between", len(ck.Limits))
		}
		if ck.Unit != "" && ck.Unit != UnitMS {
			c.fail(fmt.Sprintf("%s.checks[%d].unit", path, j), "%q: want ms or nothing", ck.Unit)
		}
	}
	for j, e := range s.Events {
		c.within(fmt.Sprintf("%s.events[%d].t", path, j), e.T, 0, MaxStepSeconds)
	}
}

// byName checks the figures of named requests (or loads) and of status
// codes: each count in range, and the names' and the statuses' counts
// adding up to at most the step's requests (and dropped). A load's named
// requests (LOAD/NAME beside LOAD) add up to at most the load's instead.
func (c *checker) byName(path string, s *Step) {
	named, dropped := s.Requests, s.Dropped
	parts := map[string]int64{} // by load: its requests left by its parts so far
	for _, name := range sortedKeys(s.ByName) {
		n, p := s.ByName[name], path+".by_name."+name
		c.count(p+".requests", n.Requests)
		c.count(p+".dropped", n.Dropped)
		c.count(p+".errors", n.Errors)
		c.atMost(p+".errors", n.Errors, p+".requests", n.Requests)
		if load, ok := c.loadOf(name, s.ByName); ok {
			if _, seen := parts[load]; !seen {
				parts[load] = s.ByName[load].Requests
			}
			c.atMost(p+".requests", n.Requests, "the requests of load "+load+" left by its other names", parts[load])
			parts[load] -= max(n.Requests, 0)
		} else {
			c.atMost(p+".dropped", n.Dropped, "the step's dropped left by the other names", dropped)
			dropped -= max(n.Dropped, 0)
			c.atMost(p+".requests", n.Requests, "the step's requests left by the other names", named)
			named -= max(n.Requests, 0)
		}
		for _, k := range sortedKeys(n.ErrorKinds) {
			c.count(p+".error_kinds."+k, n.ErrorKinds[k])
		}
		c.percentiles(p+".latency_ms", n.LatencyMS)
		c.samples(p+".samples", n.Samples)
		if n.Histogram != "" {
			if _, err := DecodeHistogram(n.Histogram); err != nil {
				c.fail(p+".histogram", "%v", err)
			}
		}
	}
	statuses := s.Requests
	for _, code := range sortedKeys(s.Status) {
		c.count(path+".status."+code, s.Status[code])
		c.atMost(path+".status."+code, s.Status[code], "the step's requests left by the other statuses", statuses)
		statuses -= max(s.Status[code], 0)
	}
}

// histogram checks that the step's histogram decodes, holds no more
// latencies than the step has requests (it holds one per operation of the
// measured phase) and none past the latency bound.
func (c *checker) histogram(path string, s *Step) {
	if s.Histogram == "" {
		return
	}
	h, err := DecodeHistogram(s.Histogram)
	if err != nil {
		c.fail(path+".histogram", "%v", err)
		return
	}
	c.atMost(path+".histogram", h.TotalCount(), path+".requests", s.Requests)
	c.latency(path+".histogram", float64(h.Max())/1000)
}

// counts checks a step's counts and how they nest: errors and drained
// are among the requests, the error kinds add up to at most the errors.
func (c *checker) counts(path string, s *Step) {
	c.count(path+".requests", s.Requests)
	c.count(path+".errors", s.Errors)
	c.count(path+".dropped", s.Dropped)
	c.count(path+".drained", s.Drained)
	c.count(path+".late", s.Late)
	c.atMost(path+".errors", s.Errors, path+".requests", s.Requests)
	c.atMost(path+".drained", s.Drained, path+".requests", s.Requests)
	left := s.Errors // what the kinds not yet seen may add up to
	for _, k := range sortedKeys(s.ErrorKinds) {
		n := s.ErrorKinds[k]
		c.count(path+".error_kinds."+k, n)
		c.atMost(path+".error_kinds."+k, n, "the errors left by the other kinds", left)
		left -= max(n, 0)
	}
	for _, k := range sortedKeys(s.Counters) {
		c.count(path+".counters."+k, s.Counters[k])
	}
}

func (c *checker) target(path string, t *TargetStats) {
	if t == nil {
		return
	}
	for _, r := range []struct {
		name string
		r    Range
	}{{"rss_mb", t.RSSMB}, {"fds", t.FDs}, {"threads", t.Threads}} {
		c.nonNeg(path+"."+r.name+".start", r.r.Start)
		c.nonNeg(path+"."+r.name+".peak", r.r.Peak)
		c.nonNeg(path+"."+r.name+".end", r.r.End)
	}
	c.finite(path+".rss_slope_mb_per_min", t.RSSSlopeMBPerMin)
	c.finite(path+".rss_tail_slope_mb_per_min", t.RSSTailSlopeMBMin)
	c.finite(path+".fds_slope_per_min", t.FDsSlopePerMin)
	c.finite(path+".fds_per_unit", t.FDsPerUnit)
	c.nonNeg(path+".rss_slope_se_mb_per_min", t.RSSSlopeSE)
	c.nonNeg(path+".rss_tail_slope_se_mb_per_min", t.RSSTailSlopeSE)
	c.nonNeg(path+".fds_slope_se_per_min", t.FDsSlopeSE)
	c.nonNeg(path+".cpu_cores", t.CPUCores)
	c.nonNeg(path+".cpu_cores_se", t.CPUCoresSE)
	c.nonNeg(path+".cpu_cores_peak", t.CPUCoresPeak)
	c.within(path+".span_s", t.SpanS, 0, MaxStepSeconds)
}

func (c *checker) series(path string, pts []Point) {
	for j, p := range pts {
		at := fmt.Sprintf("%s[%d]", path, j)
		c.within(at+".t", p.T, 0, MaxStepSeconds)
		c.within(at+".dt", p.DT, 0, MaxStepSeconds)
		c.nonNeg(at+".rps", p.RPS)
		c.latency(at+".p50_ms", p.P50MS)
		c.latency(at+".p99_ms", p.P99MS)
		c.count(at+".errors", p.Errors)
		c.count(at+".in_flight", int64(p.InFlight))
		c.nonNeg(at+".rss_mb", p.RSSMB)
		c.nonNeg(at+".fds", p.FDs)
		c.nonNeg(at+".self_rss_mb", p.SelfMB)
		if c.err != nil {
			return
		}
	}
}

// MaxSamples bounds the values of one figure in Samples: the engine keeps
// at most a few thousand blocks, and a comparison needs far fewer; more is
// a damaged or hostile file, refused before any test sorts it.
const MaxSamples = 100_000

// sampleBound is the largest value a sample of key may have: latencies
// their bound, error_rate 1, throughputs any finite rate.
func sampleBound(key string) float64 {
	switch key {
	case SampleErrorRate:
		return 1
	case SampleRPS, SampleOKRPS:
		return math.MaxFloat64
	}
	return MaxLatencyMS
}

func (c *checker) samples(path string, sm *Samples) {
	if sm == nil {
		return
	}
	switch {
	case sm.Of != SamplesOfRuns && sm.Of != SamplesOfBlocks:
		c.fail(path+".of", "%q, want %q or %q", sm.Of, SamplesOfRuns, SamplesOfBlocks)
	case sm.Of == SamplesOfBlocks:
		c.within(path+".block_s", sm.BlockS, math.SmallestNonzeroFloat64, MaxStepSeconds)
	}
	for _, key := range sortedKeys(sm.Values) {
		vs := sm.Values[key]
		at := path + ".values." + key
		if len(vs) > MaxSamples {
			c.fail(at, "%d values, more than the %d an artifact may hold", len(vs), MaxSamples)
			return
		}
		for j, v := range vs {
			c.within(fmt.Sprintf("%s[%d]", at, j), v, 0, sampleBound(key))
		}
	}
	c.blocks(path+".blocks", sm.Blocks)
}

// blocks checks a shard's block data: as many counts as histograms, and
// no block with more errors than operations.
func (c *checker) blocks(path string, b *BlockData) {
	if b == nil {
		return
	}
	n := len(b.Histograms)
	if n > MaxSamples || len(b.Requests) != n || len(b.Errors) != n {
		c.fail(path, "%d histograms, %d request counts, %d error counts: want as many of each, at most %d", n, len(b.Requests), len(b.Errors), MaxSamples)
		return
	}
	for j := range n {
		c.within(fmt.Sprintf("%s.errors[%d]", path, j), float64(b.Errors[j]), 0, float64(b.Requests[j]))
	}
}

// hlogName wants an interval log's name to be a file name beside the
// artifact, never a path elsewhere that a reader would open.
func (c *checker) hlogName(path, name string) {
	if name != "" && (filepath.Base(name) != name || !strings.HasSuffix(name, ".hlog")) {
		c.fail(path, "%q: not a .hlog file name beside the artifact", name)
	}
}

// loadOf is the load a by_name entry is a named request of (LOAD/NAME
// beside LOAD, in a group of several loads); false for any other entry.
func (c *checker) loadOf(name string, byName map[string]NamedStep) (string, bool) {
	load, _, ok := strings.Cut(name, "/")
	if !c.loads || !ok {
		return "", false
	}
	_, ok = byName[load]
	return load, ok
}
