package artifacts

import (
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range: every latency is recorded in microseconds, from 1 µs to
// 60 s, with 3 significant digits.
const (
	HistMinUS  = 1
	HistMaxUS  = 60_000_000
	HistDigits = 3
)

// NewHistogram returns an empty latency histogram of the artifact's range.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistMinUS, HistMaxUS, HistDigits)
}

// EncodeHistogram renders h in the HdrHistogram V2 compressed base64 form
// ("HISTF…") that other HdrHistogram tools read.
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encoding histogram: %w", err)
	}
	return string(b), nil
}

// DecodeHistogram parses the form EncodeHistogram writes.
func DecodeHistogram(s string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decoding histogram: %w", err)
	}
	return h, nil
}

// PercentilesOf reads the artifact's latency figures, in milliseconds, from
// a histogram recorded in microseconds.
func PercentilesOf(h *hdrhistogram.Histogram) Percentiles {
	if h.TotalCount() == 0 {
		return Percentiles{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Percentiles{
		P50:  ms(h.ValueAtQuantile(50)),
		P90:  ms(h.ValueAtQuantile(90)),
		P99:  ms(h.ValueAtQuantile(99)),
		P999: ms(h.ValueAtQuantile(99.9)),
		Max:  ms(h.Max()),
		Mean: h.Mean() / 1000,
		Min:  ms(h.Min()),

		P99Ceil:  ms(ValueAtPercentileCeil(h, 99)),
		P999Ceil: ms(ValueAtPercentileCeil(h, 99.9)),
	}
}

// HistogramDelta is what was recorded into a histogram between two of its
// states, before and now (the running histogram of a shard's live lines
// a second apart): now's counts less before's. ok is false when the two
// differ in range or before holds a count now lacks (not the same
// histogram's states).
func HistogramDelta(now, before *hdrhistogram.Histogram) (delta *hdrhistogram.Histogram, ok bool) {
	n, b := now.Export(), before.Export()
	if n.LowestTrackableValue != b.LowestTrackableValue || n.HighestTrackableValue != b.HighestTrackableValue ||
		n.SignificantFigures != b.SignificantFigures || len(n.Counts) != len(b.Counts) {
		return nil, false
	}
	for i, c := range b.Counts {
		if n.Counts[i] < c {
			return nil, false
		}
		n.Counts[i] -= c
	}
	return hdrhistogram.Import(n), true
}

// ValueAtPercentileCeil is h's value at percentile q (0 to 100) by the
// rank rule of HdrHistogram Java's getValueAtPercentile (and JavaScript's):
// the operation ranked ceil(q/100 · n), q first lowered by one ulp so that
// q/100 · n landing a hair above a whole number does not count the next
// operation, at least 1; reported as the highest value equivalent to its
// bucket (the lowest, for q 0). hdrhistogram-go's ValueAtQuantile rounds
// the rank instead (floor(q/100 · n + 0.5)). 0 for an empty histogram.
func ValueAtPercentileCeil(h *hdrhistogram.Histogram, q float64) int64 {
	if h.TotalCount() == 0 {
		return 0
	}
	if q == 0 {
		return h.ValueAtPercentile(0) // rank 1 by either rule, its lowest equivalent value
	}
	n := h.TotalCount()
	requested := math.Min(math.Max(math.Nextafter(q, math.Inf(-1)), 0), 100)
	rank := min(max(int64(math.Ceil((requested*float64(n))/100)), 1), n)
	// hdrhistogram-go takes the operation ranked floor(p/100·n + 0.5): at
	// p = (rank - 1/4)/n · 100 that is rank, with a quarter of room for the
	// floating-point error. Its scan is the same as Java's.
	return h.ValueAtPercentile((float64(rank) - 0.25) / float64(n) * 100)
}
