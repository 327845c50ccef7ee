package runners

import (
	"slices"
	"strconv"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchtui/benchtui/artifacts"
)

// Recorder collects the timings and counts of the workers that share it.
// The engine gives each worker a recorder (workers beyond the shard count
// share one, so memory stays bounded with thousands of workers); each tick it
// swaps the interval histograms out under the lock, so recording never waits
// on merging. One histogram, one owner: the histograms never leave it.
type Recorder struct {
	mu       sync.Mutex
	latency  *hdrhistogram.Histogram // from due time, µs
	service  *hdrhistogram.Histogram // from send, µs
	extra    map[string]*hdrhistogram.Histogram
	requests int64
	errors   int64
	dropped  int64
	kinds    map[string]int64
	counters map[string]int64
	names    map[string]*Named   // by the operations' Outcome.Name
	status   map[int]int64       // by the operations' Outcome.Status (keyed so, no string per operation)
	details  map[string][]string // the first distinct Outcome.Details of each error kind since the last swap
	// load, when set, names every operation recorded here after one of a
	// group's several loads (LoadName), and counts its drops under it.
	load string
	// windows, when set, are the step's windows, which take their figures
	// from the operations recorded here too.
	windows *WindowSet
	// tap, when set, hands every operation to the run's request stream.
	tap *requestTap
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{
		latency: artifacts.NewHistogram(),
		service: artifacts.NewHistogram(),
	}
}

// NewLoadRecorder returns an empty recorder for one of a group's several
// loads (loads:): whatever its runner records through it becomes a named
// figure of the load (steps[].by_name), its drops included.
func NewLoadRecorder(load string) *Recorder {
	r := NewRecorder()
	r.load = load
	return r
}

func micros(d time.Duration) int64 {
	us := d.Microseconds()
	switch {
	case us < artifacts.HistMinUS:
		return artifacts.HistMinUS
	case us > artifacts.HistMaxUS:
		return artifacts.HistMaxUS // counted at the top, never dropped
	}
	return us
}

// Done records one operation that was due at due, went out at sent and
// ended at end. errKind is "" on success.
func (r *Recorder) Done(due, sent, end time.Time, errKind string) {
	r.observe(end.Sub(due), end.Sub(sent), errKind)
	if r.tap != nil {
		r.tap.send(due, sent, end, r.loadOutcome(Outcome{Err: errKind}))
	}
}

// Record records one operation that was due at due, went out at sent and
// ended at end, as Done does, and under its Outcome's name and status too.
// On a load's recorder every operation counts under the load's name, and
// a named one under LOAD/NAME as well (LoadName).
func (r *Recorder) Record(due, sent, end time.Time, out Outcome) {
	if r.tap != nil {
		r.tap.send(due, sent, end, r.loadOutcome(out))
	}
	if out.Name == "" && out.Status == 0 && out.Detail == "" {
		r.observe(end.Sub(due), end.Sub(sent), out.Err) // counted under the load
		return
	}
	latency := micros(end.Sub(due))
	r.mu.Lock()
	r.observeLocked(end.Sub(due), end.Sub(sent), out.Err)
	if r.load != "" {
		r.namedFor(r.load).observe(latency, out.Err)
		if out.Name != "" {
			out.Name = LoadName(r.load, out.Name)
		}
	}
	r.named(out.Name, latency, out.Err, out.Status)
	r.detailLocked(out)
	r.mu.Unlock()
}

// loadOutcome is out named as the request stream writes it: on a load's
// recorder LOAD/NAME, or LOAD for an unnamed operation.
func (r *Recorder) loadOutcome(out Outcome) Outcome {
	if r.load != "" {
		out.Name = LoadName(r.load, out.Name)
	}
	return out
}

// detailLocked keeps the error's detail when its kind has fewer than
// artifacts.MaxErrorSamples distinct details since the last swap: an
// error storm costs a map lookup and at most that many comparisons each,
// and a kind whose failures differ (two assertions) keeps each message.
func (r *Recorder) detailLocked(out Outcome) {
	if out.Err == "" || out.Detail == "" {
		return
	}
	have := r.details[out.Err]
	if len(have) >= artifacts.MaxErrorSamples || slices.Contains(have, out.Detail) {
		return
	}
	if r.details == nil {
		r.details = map[string][]string{}
	}
	r.details[out.Err] = append(have, out.Detail)
}

// Observe records one operation by its latency (from when it was due) and
// service time (from when it went out).
func (r *Recorder) Observe(latency, service time.Duration, errKind string) {
	r.observe(latency, service, errKind)
	if r.tap != nil {
		end := time.Now()
		r.tap.send(end.Add(-latency), end.Add(-service), end, r.loadOutcome(Outcome{Err: errKind}))
	}
}

func (r *Recorder) observe(latency, service time.Duration, errKind string) {
	r.mu.Lock()
	r.observeLocked(latency, service, errKind)
	if r.load != "" {
		r.namedFor(r.load).observe(micros(latency), errKind)
	}
	r.mu.Unlock()
}

func (r *Recorder) observeLocked(latency, service time.Duration, errKind string) {
	if HasLatency(errKind) { // a cut operation, or one never sent, has none
		r.latency.RecordValue(micros(latency))
		r.service.RecordValue(micros(service))
	}
	r.requests++
	r.windows.observe(latency, errKind)
	if errKind != "" {
		r.errors++
		if r.kinds == nil {
			r.kinds = map[string]int64{}
		}
		r.kinds[errKind]++
	}
}

// Extra records a timing kept apart from the operation's latency, such as a
// QUIC handshake or a wait for a pooled connection.
func (r *Recorder) Extra(name string, d time.Duration) {
	r.mu.Lock()
	if r.extra == nil {
		r.extra = map[string]*hdrhistogram.Histogram{}
	}
	h := r.extra[name]
	if h == nil {
		h = artifacts.NewHistogram()
		r.extra[name] = h
	}
	h.RecordValue(micros(d))
	r.mu.Unlock()
}

// Drop counts n operations that were due but found no free slot.
func (r *Recorder) Drop(n int64) {
	r.mu.Lock()
	r.dropped += n
	if r.load != "" {
		r.namedFor(r.load).Dropped += n
	}
	r.mu.Unlock()
}

// Count adds n to a runner-specific counter (disconnects, reconnects, …).
func (r *Recorder) Count(name string, n int64) {
	r.mu.Lock()
	if r.counters == nil {
		r.counters = map[string]int64{}
	}
	r.counters[name] += n
	r.mu.Unlock()
}

// Interval is what a recorder collected since the last swap. Its
// histograms pass to the caller of Swap, who becomes their one owner.
type Interval struct {
	Latency, Service *hdrhistogram.Histogram
	Extra            map[string]*hdrhistogram.Histogram
	Requests         int64
	Errors           int64
	Dropped          int64
	Kinds            map[string]int64
	Counters         map[string]int64
	// Named are the figures by operation name, Status the operations by
	// protocol status code ("200", "429"); nil when no runner set them.
	Named  map[string]*Named
	Status map[string]int64
	// Details are the first distinct Outcome.Details of each error kind,
	// at most artifacts.MaxErrorSamples; nil without one.
	Details map[string][]string
}

// statusNames is counts by status code, keyed by the code's text.
func statusNames(byCode map[int]int64) map[string]int64 {
	if byCode == nil {
		return nil
	}
	out := make(map[string]int64, len(byCode))
	for code, n := range byCode {
		out[strconv.Itoa(code)] = n
	}
	return out
}

// Swap hands back what was collected and starts afresh with the spare
// histograms, which must be empty. The engine calls it on every tick.
func (r *Recorder) Swap(spareLat, spareSvc *hdrhistogram.Histogram) Interval {
	r.mu.Lock()
	iv := Interval{
		Latency: r.latency, Service: r.service, Extra: r.extra,
		Requests: r.requests, Errors: r.errors, Dropped: r.dropped,
		Kinds: r.kinds, Counters: r.counters, Named: r.names, Status: statusNames(r.status),
		Details: r.details,
	}
	r.latency, r.service = spareLat, spareSvc
	r.extra, r.kinds, r.counters, r.names, r.status, r.details = nil, nil, nil, nil, nil, nil
	r.requests, r.errors, r.dropped = 0, 0, 0
	r.mu.Unlock()
	return iv
}
