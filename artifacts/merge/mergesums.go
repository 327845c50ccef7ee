package merge

import (
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/benchtui/benchtui/artifacts"
)

// sums adds the shards' figures up, keeping the first sum that would
// overflow: each shard's counts may be in range and their sum not (two
// shards of 2^63-1 requests), and a merge must never wrap to a negative
// count or an infinite rate.
type sums struct{ err error }

func (s *sums) fail(field, format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("%s: %s: not figures benchtui wrote", field, fmt.Sprintf(format, args...))
	}
}

// int is a + b, or a when that overflows.
func (s *sums) int(field string, a, b int64) int64 {
	c := a + b
	if (b > 0 && c < a) || (b < 0 && c > a) {
		s.fail(field, "%d + %d overflows", a, b)
		return a
	}
	return c
}

// maxRate bounds a merged rate: far above any generator's, and where a
// rate rounded to thousandths still fits an int64.
const maxRate = 1e15

// rate is a + b rounded to thousandths, or a when that is past maxRate.
func (s *sums) rate(field string, a, b float64) float64 {
	c := a + b
	if math.IsNaN(c) || c < 0 || c > maxRate {
		s.fail(field, "%v + %v is out of range [0, %v]", a, b, maxRate)
		return a
	}
	return artifacts.RoundTo(c, 1000)
}

// ints adds b's counts into a (made when needed) and returns it.
func (s *sums) ints(field string, a, b map[string]int64) map[string]int64 {
	if len(b) == 0 {
		return a
	}
	if a == nil {
		a = make(map[string]int64, len(b))
	}
	for k, v := range b {
		a[k] = s.int(field+"."+k, a[k], v)
	}
	return a
}

// merge merges histogram from into h, unless their counts' sum would
// overflow.
func (s *sums) merge(field string, h, from *hdrhistogram.Histogram) {
	if s.int(field, h.TotalCount(), from.TotalCount()); s.err == nil {
		h.Merge(from)
	}
}
