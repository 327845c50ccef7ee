package merge

import (
	"fmt"

	"github.com/benchtui/benchtui/artifacts"
)

// mergeSamples rebuilds the block samples of a merged step from the
// shards' block data, block k from every shard's k-th: nil when a shard
// kept none or the shards' blocks differ in length.
func mergeSamples(parts []artifacts.ShardFile, k int) (*artifacts.Samples, error) {
	var width float64
	n := -1
	for _, p := range parts {
		s := p.A.Steps[k].Samples
		if s == nil || s.Blocks == nil || s.Of != artifacts.SamplesOfBlocks || (width != 0 && s.BlockS != width) {
			return nil, nil
		}
		width = s.BlockS
		if l := len(s.Blocks.Histograms); n < 0 || l < n {
			n = l
		}
	}
	out := &artifacts.Samples{Of: artifacts.SamplesOfBlocks, BlockS: width, Values: map[string][]float64{}}
	for b := range n {
		h := artifacts.NewHistogram()
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
		for key, v := range artifacts.BlockFigures(h, req, errs, width) {
			out.Values[key] = append(out.Values[key], v)
		}
	}
	if len(out.Values[artifacts.SampleRPS]) == 0 {
		return nil, nil
	}
	return out, nil
}

// mergeSeries joins the shards' series of step k point by point (the
// shards tick on one clock from one start), for shards that kept no
// interval log (mergeIntervals): rates, errors and in-flight summed, the
// target's figures shard 0's, and each percentile the highest shard's, an
// upper bound of the whole's.
func mergeSeries(parts []artifacts.ShardFile, k int) ([]artifacts.Point, error) {
	base := parts[0].A.Steps[k].Series
	out := make([]artifacts.Point, 0, len(base))
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
