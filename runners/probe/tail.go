package probe

import (
	"math"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// TailSlope is the least-squares slope per minute of the named probe's
// reads over the last window of its series, and how many reads that
// window holds; NaN and 0 when the Set has no such probe. A soak policy
// (plan.SeriesRule) judges a rise by it.
func (s *Set) TailSlope(name string, window time.Duration) (perMin float64, reads int) {
	if s == nil {
		return math.NaN(), 0
	}
	for _, r := range s.probes {
		if r.spec.Name != name {
			continue
		}
		r.mu.Lock()
		pts := r.series.points()
		r.mu.Unlock()
		tail := tailOf(pts, window.Seconds())
		for _, p := range tail {
			if !p.Gap {
				reads++
			}
		}
		if reads < 2 {
			return math.NaN(), reads
		}
		return slope(tail) * 60, reads
	}
	return math.NaN(), 0
}

// tailOf is the points of pts within secs of its last point.
func tailOf(pts []artifacts.ProbePoint, secs float64) []artifacts.ProbePoint {
	if len(pts) == 0 {
		return nil
	}
	from := pts[len(pts)-1].T - secs
	i := len(pts)
	for i > 0 && pts[i-1].T >= from {
		i--
	}
	return pts[i:]
}
