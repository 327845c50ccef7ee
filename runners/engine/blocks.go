package engine

import (
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

// minOpsFor is how many operations a block needs before its value of a
// tail percentile means anything: ten beyond the percentile (a 1 s block
// of 200 operations has no p99 worth testing, only its two slowest). A
// block with fewer gives no sample of that figure; its others still count.
var minOpsFor = map[string]int64{artifacts.SampleP90: 100, artifacts.SampleP99: 1_000, artifacts.SampleP999: 10_000}

func (b *blocks) emit() {
	p := artifacts.PercentilesOf(b.hist)
	ok := b.counts.requests - b.counts.errors
	rate := 0.0
	if b.counts.requests > 0 {
		rate = float64(b.counts.errors) / float64(b.counts.requests)
	}
	for k, v := range map[string]float64{
		artifacts.SampleRPS: float64(b.counts.requests) / b.dt, artifacts.SampleOKRPS: float64(ok) / b.dt,
		artifacts.SampleErrorRate: rate, artifacts.SampleP50: p.P50, artifacts.SampleP90: p.P90,
		artifacts.SampleP99: p.P99, artifacts.SampleP999: p.P999, artifacts.SampleMax: p.Max, artifacts.SampleMean: p.Mean,
	} {
		if b.counts.requests >= minOpsFor[k] {
			b.values[k] = append(b.values[k], round3(v))
		}
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
	b.width *= 2
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
	return s
}
