package runners

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchtui/benchtui/artifacts"
)

// MaxNames bounds the named figures of a step: a plan names a handful of
// requests; past this many names, operations are counted under
// OtherName, so a runner that names by something unbounded (a templated
// path) cannot grow memory with it.
const MaxNames = 64

// OtherName collects the operations of names past MaxNames.
const OtherName = "(other)"

// namedDigits is the precision of a recorder's per-name histograms: two
// significant digits (1%) keep each to about 27 KB, so a recorder per
// worker shard times a few names stays small. The step's totals keep the
// full precision.
const namedDigits = 2

// Named are the figures of the operations of one name since the last
// swap (or, in the engine, over the step).
type Named struct {
	Latency  *hdrhistogram.Histogram // from due time, µs
	Requests int64
	Errors   int64
	Kinds    map[string]int64
	// Dropped counts the open-loop arrivals of a load (loads:) that found
	// no free slot; requests have none of their own.
	Dropped int64
}

func newNamed(digits int) *Named {
	return &Named{Latency: hdrhistogram.New(artifacts.HistMinUS, artifacts.HistMaxUS, digits)}
}

// NewNamed returns empty figures for a name at the step's precision.
func NewNamed() *Named { return newNamed(artifacts.HistDigits) }

func (n *Named) observe(latency int64, errKind string) {
	if HasLatency(errKind) { // a cut operation, or one never sent, has none
		n.Latency.RecordValue(latency)
	}
	n.Requests++
	if errKind != "" {
		n.Errors++
		if n.Kinds == nil {
			n.Kinds = map[string]int64{}
		}
		n.Kinds[errKind]++
	}
}

// Reset empties n for reuse.
func (n *Named) Reset() {
	n.Latency.Reset()
	n.Requests, n.Errors, n.Dropped = 0, 0, 0
	clear(n.Kinds)
}

// Add merges o into n.
func (n *Named) Add(o *Named) {
	n.Latency.Merge(o.Latency)
	n.Requests += o.Requests
	n.Errors += o.Errors
	n.Dropped += o.Dropped
	for k, v := range o.Kinds {
		if n.Kinds == nil {
			n.Kinds = map[string]int64{}
		}
		n.Kinds[k] += v
	}
}

// named records one operation of a name, and its status; mu is held.
func (r *Recorder) named(name string, latency int64, errKind string, status int) {
	if status > 0 {
		if r.status == nil {
			r.status = map[int]int64{}
		}
		r.status[status]++
	}
	if name == "" {
		return
	}
	r.namedFor(name).observe(latency, errKind)
}

// namedFor is the figures of name, made on first use; past MaxNames names,
// those of OtherName. mu is held.
func (r *Recorder) namedFor(name string) *Named {
	if r.names == nil {
		r.names = map[string]*Named{}
	}
	n := r.names[name]
	if n == nil {
		if len(r.names) >= MaxNames {
			name = OtherName
			n = r.names[name]
		}
		if n == nil {
			n = newNamed(namedDigits)
			r.names[name] = n
		}
	}
	return n
}

// LoadName is the name an operation of a group's load (loads:) is
// counted under: the load's, and "load/name" as well when the operation
// has a name of its own. Every operation of a load is thus counted under
// the load's name, and the loads' figures add up to the step's; a load's
// named requests are parts of it.
func LoadName(load, name string) string {
	if name == "" {
		return load
	}
	return load + "/" + name
}

// NamedCountsOf are the counts of a step's named figures (steps[].by_name),
// as a Summary carries them.
func NamedCountsOf(byName map[string]artifacts.NamedStep) map[string]NamedCounts {
	if len(byName) == 0 {
		return nil
	}
	out := make(map[string]NamedCounts, len(byName))
	for name, n := range byName {
		out[name] = NamedCounts{Requests: n.Requests, Errors: n.Errors}
	}
	return out
}
