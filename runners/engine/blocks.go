package engine

import (
	"slices"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchtui/benchtui/artifacts"
)

// DefaultBlock is the length of a within-run sample: a step's measured
// time is cut into non-overlapping blocks of it, and each block's figures
// are one sample for comparisons (never the 0.5 s series points).
const DefaultBlock = time.Second

// MaxBlocks bounds a step's samples: past it, neighbouring blocks are
// merged in pairs and the block length doubles, so memory stays flat
// however long a soak runs (an hour of 1 s blocks fits).
const MaxBlocks = 3600

// blocks gathers ticks into blocks of `width` seconds of active time; each
// full block becomes one value of every sampled figure.
type blocks struct {
	width  float64
	hist   *hdrhistogram.Histogram
	dt     float64
	counts counts
	values map[string][]float64
	// kept is each block's makings, kept for a shard (nil otherwise).
	kept *artifacts.BlockData
}

func newBlocks(width time.Duration) *blocks {
	return &blocks{width: width.Seconds(), hist: artifacts.NewHistogram(), values: map[string][]float64{}}
}

func (b *blocks) add(iv *hdrhistogram.Histogram, c counts, dt float64) {
	b.hist.Merge(iv)
	b.dt += dt
	b.counts.requests += c.requests
	b.counts.errors += c.errors
	if b.dt >= b.width-Tick.Seconds()/2 {
		b.emit()
	}
}

func (b *blocks) emit() {
	for k, v := range artifacts.BlockFigures(b.hist, b.counts.requests, b.counts.errors, b.dt) {
		b.values[k] = append(b.values[k], v)
	}
	if b.kept != nil {
		enc, _ := artifacts.EncodeHistogram(b.hist)
		b.kept.Histograms = append(b.kept.Histograms, enc)
		b.kept.Requests = append(b.kept.Requests, b.counts.requests)
		b.kept.Errors = append(b.kept.Errors, b.counts.errors)
	}
	b.hist.Reset()
	b.dt, b.counts = 0, counts{}
	if len(b.values[artifacts.SampleRPS]) >= MaxBlocks {
		b.thin()
	}
}

// thin merges neighbouring blocks in pairs (for a tail percentile, the
// neighbouring blocks that had one): rates and error rates are
// averaged exactly (the blocks are equally long), latency figures are the
// mean of the pair's, max the larger.
func (b *blocks) thin() {
	for k, vals := range b.values {
		out := vals[:0]
		for i := 0; i+1 < len(vals); i += 2 {
			v := (vals[i] + vals[i+1]) / 2
			if k == artifacts.SampleMax {
				v = max(vals[i], vals[i+1])
			}
			out = append(out, round3(v))
		}
		b.values[k] = out
	}
	b.thinKept()
	b.width *= 2
}

// thinKept merges the kept blocks in pairs, as thin does the values.
func (b *blocks) thinKept() {
	d := b.kept
	if d == nil {
		return
	}
	var out artifacts.BlockData
	for i := 0; i+1 < len(d.Histograms); i += 2 {
		h := artifacts.NewHistogram()
		for _, enc := range d.Histograms[i : i+2] {
			if got, err := artifacts.DecodeHistogram(enc); err == nil {
				h.Merge(got)
			}
		}
		enc, _ := artifacts.EncodeHistogram(h)
		out.Histograms = append(out.Histograms, enc)
		out.Requests = append(out.Requests, d.Requests[i]+d.Requests[i+1])
		out.Errors = append(out.Errors, d.Errors[i]+d.Errors[i+1])
	}
	b.kept = &out
}

// samples are the full blocks so far; nil when there is none.
func (b *blocks) samples() *artifacts.Samples {
	if len(b.values[artifacts.SampleRPS]) == 0 {
		return nil
	}
	s := &artifacts.Samples{Of: artifacts.SamplesOfBlocks, BlockS: b.width, Values: map[string][]float64{}}
	for k, v := range b.values {
		s.Values[k] = append([]float64(nil), v...)
	}
	if d := b.kept; d != nil {
		s.Blocks = &artifacts.BlockData{Requests: slices.Clone(d.Requests), Errors: slices.Clone(d.Errors), Histograms: slices.Clone(d.Histograms)}
	}
	return s
}
