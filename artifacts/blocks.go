package artifacts

import (
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// BlockData keeps, for a shard of a distributed run, what each block of a
// step's samples was made of: its operations, errors and latency
// histogram, so that merge can rebuild the samples of the whole run
// exactly (a percentile cannot be merged from the shards' percentiles).
type BlockData struct {
	Requests   []int64  `json:"requests"`
	Errors     []int64  `json:"errors"`
	Histograms []string `json:"histograms"`
}

// MinOpsFor is how many operations a block needs before its value of a
// tail percentile means anything: ten beyond the percentile (a 1 s block
// of 200 operations has no p99 worth testing, only its two slowest). A
// block with fewer gives no sample of that figure; its others still count.
var MinOpsFor = map[string]int64{SampleP90: 100, SampleP99: 1_000, SampleP999: 10_000}

// BlockFigures are the sampled figures of one block of dt seconds that
// held requests operations (errors of them failed) timed by h: each
// figure a block of so many operations can give (MinOpsFor).
func BlockFigures(h *hdrhistogram.Histogram, requests, errors int64, dt float64) map[string]float64 {
	p := PercentilesOf(h)
	rate := 0.0
	if requests > 0 {
		rate = float64(errors) / float64(requests)
	}
	out := map[string]float64{}
	for k, v := range map[string]float64{
		SampleRPS: float64(requests) / dt, SampleOKRPS: float64(requests-errors) / dt,
		SampleErrorRate: rate, SampleP50: p.P50, SampleP90: p.P90,
		SampleP99: p.P99, SampleP999: p.P999, SampleMax: p.Max, SampleMean: p.Mean,
	} {
		if requests >= MinOpsFor[k] {
			out[k] = math.Round(v*1000) / 1000
		}
	}
	return out
}

// mergeSamples rebuilds the block samples of a merged step from the
// shards' block data, block k from every shard's k-th: nil when a shard
// kept none or the shards' blocks differ in length.
func mergeSamples(parts []ShardFile, k int) (*Samples, error) {
	var width float64
	n := -1
	for _, p := range parts {
		s := p.A.Steps[k].Samples
		if s == nil || s.Blocks == nil || s.Of != SamplesOfBlocks || (width != 0 && s.BlockS != width) {
			return nil, nil
		}
		width = s.BlockS
		if l := len(s.Blocks.Histograms); n < 0 || l < n {
			n = l
		}
	}
	out := &Samples{Of: SamplesOfBlocks, BlockS: width, Values: map[string][]float64{}}
	for b := range n {
		h := NewHistogram()
		var req, errs int64
		for _, p := range parts {
			d, sum := p.A.Steps[k].Samples.Blocks, &sums{}
			at := fmt.Sprintf("samples.blocks.histograms[%d]", b)
			if err := mergeEncoded(h, d.Histograms[b], at, sum); err != nil {
				return nil, fmt.Errorf("%s: %w", p.Path, err)
			}
			req, errs = sum.int(at+".requests", req, d.Requests[b]), sum.int(at+".errors", errs, d.Errors[b])
			if sum.err != nil {
				return nil, fmt.Errorf("%s: %w", p.Path, sum.err)
			}
		}
		for key, v := range BlockFigures(h, req, errs, width) {
			out.Values[key] = append(out.Values[key], v)
		}
	}
	if len(out.Values[SampleRPS]) == 0 {
		return nil, nil
	}
	return out, nil
}

// mergeSeries joins the shards' series of step k point by point (the
// shards tick on one clock from one start), for shards that kept no
// interval log (mergeIntervals): rates, errors and in-flight summed, the
// target's figures shard 0's, and each percentile the highest shard's, an
// upper bound of the whole's.
func mergeSeries(parts []ShardFile, k int) ([]Point, error) {
	base := parts[0].A.Steps[k].Series
	out := make([]Point, 0, len(base))
	for i, pt := range base {
		m := pt
		for _, p := range parts[1:] {
			ser := p.A.Steps[k].Series
			if i >= len(ser) {
				continue
			}
			o, sum, at := ser[i], &sums{}, fmt.Sprintf("series[%d]", i)
			m.RPS = sum.rate(at+".rps", m.RPS, o.RPS)
			m.Errors = sum.int(at+".errors", m.Errors, o.Errors)
			m.InFlight = int(sum.int(at+".in_flight", int64(m.InFlight), int64(o.InFlight)))
			if sum.err != nil {
				return nil, fmt.Errorf("merging: %s: step %s: %w", p.Path, p.A.Steps[k].Label, sum.err)
			}
			m.P50MS, m.P99MS = max(m.P50MS, o.P50MS), max(m.P99MS, o.P99MS)
		}
		out = append(out, m)
	}
	return out, nil
}
