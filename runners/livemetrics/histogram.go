package livemetrics

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// latencyBoundsUS are the upper bounds of the latency histogram's
// buckets, in µs: 100 µs to 30 s, 1-2.5-5 a decade, the buckets
// Prometheus users pick for request latency with more at the low end for
// loopback and in-cluster targets; +Inf holds the rest, up to the
// artifact's 60 s ceiling. Fixed, so that every group, step and shard
// has the same and they add up.
var latencyBoundsUS = []int64{
	100, 250, 500,
	1_000, 2_500, 5_000,
	10_000, 25_000, 50_000,
	100_000, 250_000, 500_000,
	1_000_000, 2_500_000, 5_000_000,
	10_000_000, 30_000_000,
}

// latencyBuckets is a step's latency histogram as Prometheus classic
// buckets: cumulative counts by upper bound in seconds, the count and the
// sum in seconds.
type latencyBuckets struct {
	cumulative map[float64]uint64
	count      uint64
	sumSeconds float64
}

// bucketsOf reads h (values in µs) into latencyBuckets. Each of h's
// sub-buckets is counted under the first bound at or above its highest
// value, so a bucket never counts a latency above its bound (up to
// 2.047 ms the sub-buckets are 1 µs wide and the counts are exact; above,
// a latency within h's resolution, 0.1 %, below a bound may count in the
// next bucket). The sum takes each sub-bucket at its median value, as
// HdrHistogram's mean does: sum/count is the artifact's latency_ms.mean.
func bucketsOf(h *hdrhistogram.Histogram) latencyBuckets {
	per := make([]uint64, len(latencyBoundsUS)+1) // the last is above every bound
	var sumUS float64
	b := 0
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		for b < len(latencyBoundsUS) && bar.To > latencyBoundsUS[b] {
			b++
		}
		per[b] += uint64(bar.Count)
		sumUS += float64(bar.Count) * float64(bar.From+(bar.To-bar.From+1)/2)
	}
	lb := latencyBuckets{cumulative: make(map[float64]uint64, len(latencyBoundsUS)), sumSeconds: sumUS / 1e6}
	for i, le := range latencyBoundsUS {
		lb.count += per[i]
		lb.cumulative[float64(le)/1e6] = lb.count
	}
	lb.count += per[len(latencyBoundsUS)]
	return lb
}
