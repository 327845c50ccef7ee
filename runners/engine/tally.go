package engine

import (
	"maps"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
)

// tally merges the recorders of a step on every tick into interval and
// step totals and the thinned series. Its histograms are its own: the
// recorders hand theirs over in swap and get emptied spares back.
type tally struct {
	// recorders are the step's recorders, read on every collect: a
	// group's loads add theirs while the step is prepared.
	recorders func() []*runners.Recorder

	mu       sync.Mutex
	spares   []*hdrhistogram.Histogram
	interval *hdrhistogram.Histogram // the last tick's latencies
	latency  *hdrhistogram.Histogram // the measured phase so far
	service  *hdrhistogram.Histogram
	extra    map[string]*hdrhistogram.Histogram
	counts   counts
	kinds    map[string]int64
	counters map[string]int64
	named    map[string]*runners.Named // by operation name, the step's precision
	status   map[string]int64
	// samples are a few messages of each error kind (errorSample), made
	// of the recorders' details by sample.
	samples map[string][]string
	sample  func(detail string) string
	// tickNamed is the last tick's operations by name, and namedBlocks
	// each name's samples: a comparison judges a name as it does the step.
	tickNamed   map[string]*runners.Named
	namedBlocks map[string]*blocks
	last        Stats // the last tick
	lastAt      time.Duration
	series      series
	blocks      *blocks
	// hlog is the step's interval log, from the measured phase's start.
	hlog *hlog
	// drained counts what completed after the load stopped: in the totals
	// (its latency is real) but in no second of the step's throughput.
	drained counts
	// liveHist makes every view carry the latency histogram so far,
	// encoded: a shard's live lines (a distributed run's live view
	// merges them). liveEnc is the last encoding, of liveCount
	// operations, made at liveAt.
	liveHist bool
	// copyLatency makes every view carry a copy of the latency histogram
	// so far (an observer's, LatencyObserver).
	copyLatency bool
	liveEnc     string
	liveCount   int64
	liveAt      time.Time
}

type counts struct{ requests, errors, dropped int64 }

// newTally returns the tally of recs' operations, sampled by blocks of
// block; sample makes an error's detail an error sample (errorSample).
func newTally(recs func() []*runners.Recorder, block time.Duration, sample func(detail string) string) *tally {
	if block <= 0 {
		block = DefaultBlock
	}
	t := &tally{
		recorders:   recs,
		sample:      sample,
		blocks:      newBlocks(block),
		interval:    artifacts.NewHistogram(),
		latency:     artifacts.NewHistogram(),
		service:     artifacts.NewHistogram(),
		extra:       map[string]*hdrhistogram.Histogram{},
		kinds:       map[string]int64{},
		counters:    map[string]int64{},
		named:       map[string]*runners.Named{},
		status:      map[string]int64{},
		tickNamed:   map[string]*runners.Named{},
		namedBlocks: map[string]*blocks{},
	}
	t.series.init()
	return t
}

func (t *tally) spare() *hdrhistogram.Histogram {
	if n := len(t.spares); n > 0 {
		h := t.spares[n-1]
		t.spares = t.spares[:n-1]
		return h
	}
	return artifacts.NewHistogram()
}

func (t *tally) recycle(h *hdrhistogram.Histogram) {
	h.Reset()
	t.spares = append(t.spares, h)
}

// collect swaps every recorder's interval out. With keep it adds what was
// collected to the step totals; otherwise (warmup) only to the interval.
func (t *tally) collect(keep bool) counts {
	t.interval.Reset()
	var c counts
	for _, r := range t.recorders() {
		iv := r.Swap(t.spare(), t.spare())
		t.interval.Merge(iv.Latency)
		c.requests += iv.Requests
		c.errors += iv.Errors
		c.dropped += iv.Dropped
		if keep {
			t.latency.Merge(iv.Latency)
			t.service.Merge(iv.Service)
			t.mergeMaps(iv)
		}
		t.recycle(iv.Latency)
		t.recycle(iv.Service)
	}
	if keep {
		t.counts.requests += c.requests
		t.counts.errors += c.errors
		t.counts.dropped += c.dropped
	}
	return c
}

func (t *tally) mergeMaps(iv runners.Interval) {
	for k, n := range iv.Kinds {
		t.kinds[k] += n
	}
	for k, n := range iv.Counters {
		t.counters[k] += n
	}
	for k, n := range iv.Status {
		t.status[k] += n
	}
	for k, details := range iv.Details {
		for _, d := range details {
			if len(t.samples[k]) < artifacts.MaxErrorSamples {
				t.samples = artifacts.AddErrorSample(t.samples, k, t.sample(d))
			}
		}
	}
	for k, n := range iv.Named {
		if t.named[k] == nil {
			t.named[k] = runners.NewNamed()
			t.tickNamed[k] = runners.NewNamed()
			t.namedBlocks[k] = newBlocks(time.Duration(t.blocks.width * float64(time.Second)))
		}
		t.named[k].Add(n)
		t.tickNamed[k].Add(n)
	}
	for k, h := range iv.Extra {
		if t.extra[k] == nil {
			t.extra[k] = artifacts.NewHistogram()
		}
		t.extra[k].Merge(h)
	}
}

// tick merges one interval ending at active time `active`.
func (t *tally) tick(now time.Time, active time.Duration, measuring bool, env *runners.StepEnv) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.collect(measuring)
	dt := (active - t.lastAt).Seconds()
	t.lastAt = active
	t.last = statsOf(t.interval, c, dt)
	// A tick of no time (the window closing at the instant of the last
	// tick) still brings operations: they join the open bucket and block.
	if measuring && (dt > 0 || c.requests > 0) {
		t.series.add(t.interval, c, max(dt, 0), active, env.InFlight())
		t.blocks.add(t.interval, c, max(dt, 0))
		t.addNamedBlocks(max(dt, 0))
		if t.hlog == nil { // the measured phase's first tick
			t.hlog = newHLog(time.Duration(t.blocks.width*float64(time.Second)), now.Add(-time.Duration(max(dt, 0)*float64(time.Second))))
		}
		t.hlog.add(t.interval, max(dt, 0), now)
	}
	for _, n := range t.tickNamed {
		n.Reset()
	}
}

// addNamedBlocks adds the tick's operations of each name (none, for a
// name that had none) to the name's blocks.
func (t *tally) addNamedBlocks(dt float64) {
	for k, n := range t.tickNamed {
		t.namedBlocks[k].add(n.Latency, counts{requests: n.Requests, errors: n.Errors}, dt)
	}
}

// reset discards what was recorded so far (the warmup) and restarts the
// tally's clock.
func (t *tally) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.collect(false)
	t.lastAt = 0
}

// begin restarts the tally's clock for the measured phase.
func (t *tally) begin() {
	t.mu.Lock()
	t.lastAt = 0
	t.mu.Unlock()
}

// final collects what the recorders hold after the load stopped (work that
// finished while draining) into the totals and counts it as drained; it
// belongs to no second of the step, so not to the series or the blocks.
func (t *tally) final(active time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.drained = t.collect(true)
	t.series.flush(active, 0)
	if t.hlog != nil {
		// The drained operations close the log's last interval: its
		// counts add up to the step's.
		t.hlog.add(t.interval, 0, time.Now())
		t.hlog.flush(time.Now())
	}
	if t.liveHist {
		t.encodeLive() // the step's last live line carries every operation
	}
}

func statsOf(h *hdrhistogram.Histogram, c counts, seconds float64) Stats {
	p := artifacts.PercentilesOf(h)
	s := Stats{Requests: c.requests, Errors: c.errors, Dropped: c.dropped, P50: p.P50, P90: p.P90, P99: p.P99, Max: p.Max}
	if seconds > 0 {
		s.RPS = float64(c.requests) / seconds
	}
	return s
}

// view copies what a snapshot or a result needs, under the lock.
type tallyView struct {
	last, total Stats
	byName      map[string]Stats
	kinds       map[string]int64
	counters    map[string]int64
	series      []artifacts.Point
	totalHist   string // encoded, when the tally keeps it live (shards)
	totalCopy   *hdrhistogram.Histogram
}

func (t *tally) view(measured time.Duration) tallyView {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := tallyView{
		last:     t.last,
		total:    statsOf(t.latency, t.counts, measured.Seconds()),
		kinds:    maps.Clone(t.kinds),
		counters: maps.Clone(t.counters),
		series:   t.series.points(),
	}
	if t.liveHist {
		v.totalHist = t.liveEncoding()
	}
	if t.copyLatency {
		v.totalCopy = t.latency.Clone()
	}
	for name, n := range t.named {
		if v.byName == nil {
			v.byName = make(map[string]Stats, len(t.named))
		}
		v.byName[name] = statsOf(n.Latency, counts{requests: n.Requests, errors: n.Errors, dropped: n.Dropped}, measured.Seconds())
	}
	return v
}

// liveEncodeEvery is how often a shard's running histogram is encoded
// for its live lines, which go out once a second.
const liveEncodeEvery = 900 * time.Millisecond

// liveEncoding is the latency histogram so far, encoded anew only when it
// changed and the last encoding is liveEncodeEvery old (t.mu held). Once
// the load has stopped it stops changing, so the step's last snapshot
// carries it whole after one more encoding at most liveEncodeEvery late;
// the step's end forces one (final).
func (t *tally) liveEncoding() string {
	n := t.latency.TotalCount()
	if n != t.liveCount && time.Since(t.liveAt) >= liveEncodeEvery {
		t.encodeLive()
	}
	return t.liveEnc
}

// encodeLive encodes the histogram so far now (t.mu held).
func (t *tally) encodeLive() {
	t.liveEnc, _ = artifacts.EncodeHistogram(t.latency)
	t.liveCount, t.liveAt = t.latency.TotalCount(), time.Now()
}
