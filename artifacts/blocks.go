package artifacts

import (
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
