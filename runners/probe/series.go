package probe

import (
	"math"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/watch"
)

// MaxPoints bounds a probe's series, as engine.MaxSeriesPoints bounds the
// step's: when it is reached, neighbouring points are merged in pairs and
// from then on one point stands for twice as many reads, so memory stays
// flat however long a soak runs. Min, max, last and the counts stay exact.
const MaxPoints = 1000

// series is one probe's reads in constant memory.
type series struct {
	pts    []artifacts.ProbePoint
	stride int                  // reads per point
	inPt   int                  // reads gathered into pending
	pend   artifacts.ProbePoint // the point being gathered
	n      int64                // successful reads
	errs   int64
	lo, hi float64
	last   float64
	mean   float64 // running mean of the successful reads
}

func (s *series) init() { s.stride = 1 }

func (s *series) add(t, v float64) {
	if s.n == 0 {
		s.lo, s.hi = v, v
	}
	s.n++
	s.lo, s.hi, s.last = math.Min(s.lo, v), math.Max(s.hi, v), v
	s.mean += (v - s.mean) / float64(s.n) // no sum to overflow near 1e308
	s.gather(artifacts.ProbePoint{T: round3(t), Value: v})
}

func (s *series) gap(t float64) {
	s.errs++
	s.gather(artifacts.ProbePoint{T: round3(t), Gap: true})
}

// gather folds a read into the pending point (a read beats a gap, the
// later read the earlier) and emits it once it holds stride reads.
func (s *series) gather(p artifacts.ProbePoint) {
	if s.inPt == 0 || !p.Gap || s.pend.Gap {
		s.pend = p
	}
	s.inPt++
	if s.inPt < s.stride {
		return
	}
	s.pts = append(s.pts, s.pend)
	s.inPt = 0
	if len(s.pts) >= MaxPoints {
		s.thin()
	}
}

// thin merges neighbouring points in pairs, keeping the later one unless
// it is a gap and the earlier is not.
func (s *series) thin() {
	out := s.pts[:0]
	for i := 0; i+1 < len(s.pts); i += 2 {
		a, b := s.pts[i], s.pts[i+1]
		if b.Gap && !a.Gap {
			b = a
		}
		out = append(out, b)
	}
	if len(s.pts)%2 == 1 {
		out = append(out, s.pts[len(s.pts)-1])
	}
	s.pts = out
	s.stride *= 2
}

// points is the series with the pending point, if any, at its end.
func (s *series) points() []artifacts.ProbePoint {
	out := make([]artifacts.ProbePoint, len(s.pts), len(s.pts)+1)
	copy(out, s.pts)
	if s.inPt > 0 {
		out = append(out, s.pend)
	}
	return out
}

// values are the kept reads' values, gaps left out.
func (s *series) values() []float64 {
	pts := s.points()
	out := make([]float64, 0, len(pts))
	for _, p := range pts {
		if !p.Gap {
			out = append(out, p.Value)
		}
	}
	return out
}

// stats are the probe's figures; withSeries adds its points.
func (s *series) stats(withSeries bool) artifacts.ProbeStats {
	pts := s.points()
	st := artifacts.ProbeStats{Samples: s.n, Errors: s.errs}
	if s.n > 0 {
		st.Min, st.Max, st.Last, st.Mean = s.lo, s.hi, s.last, s.mean
		st.SlopePerMin = slope(pts) * 60
	}
	if withSeries {
		st.Series = pts
	}
	return st
}

// slope is the least-squares slope per second of the series' reads. The
// reads are scaled to at most 1 in size for the fit, so that reads near
// the largest float64 (1e308) do not overflow its sums; a slope too steep
// for a float64 per minute is clamped to nearly the largest one.
func slope(pts []artifacts.ProbePoint) float64 {
	ts := make([]float64, 0, len(pts))
	ys := make([]float64, 0, len(pts))
	scale := 1.0
	for _, p := range pts {
		if !p.Gap {
			ts, ys = append(ts, p.T), append(ys, p.Value)
			scale = math.Max(scale, math.Abs(p.Value))
		}
	}
	for i := range ys {
		ys[i] /= scale
	}
	const steepest = math.MaxFloat64 / 64 // times 60 stays finite
	return max(-steepest, min(steepest, watch.LineFit(ts, ys).Slope*scale))
}

// round3 rounds f to three decimals, leaving what float64 cannot round.
func round3(f float64) float64 {
	if math.Abs(f) >= 1e15 || math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	return math.Round(f*1000) / 1000
}
