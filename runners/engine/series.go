package engine

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchtui/benchtui/artifacts"
)

// MaxSeriesPoints bounds a step's series: when it is reached, neighbouring
// points are merged in pairs and the bucket width doubles, so memory stays
// flat however long a soak runs.
const MaxSeriesPoints = 1000

// series builds a step's time series: ticks are gathered into buckets of
// `width` seconds of active time; each full bucket becomes a point with the
// exact percentiles of its merged histogram.
type series struct {
	pts    []artifacts.Point
	width  float64
	bucket *hdrhistogram.Histogram
	b      struct {
		dt             float64
		requests, errs int64
	}
	rssMB, fds, selfMB float64
}

func (s *series) init() {
	s.width = 0.5 // seconds; doubles each time the series is thinned
	s.bucket = artifacts.NewHistogram()
}

// target sets the resource figures the next points carry.
func (s *series) target(rssMB, fds, selfMB float64) {
	s.rssMB, s.fds, s.selfMB = rssMB, fds, selfMB
}

func (s *series) add(iv *hdrhistogram.Histogram, c counts, dt float64, active time.Duration, inFlight int) {
	s.bucket.Merge(iv)
	s.b.dt += dt
	s.b.requests += c.requests
	s.b.errs += c.errors
	// Ticks come a little early or late: a bucket is full within half a
	// tick of its width.
	if s.b.dt < s.width-Tick.Seconds()/2 {
		return
	}
	s.emit(active, inFlight)
}

// flush emits the last, partly filled bucket when it holds at least half
// a bucket's time (the step ended in it).
func (s *series) flush(active time.Duration, inFlight int) {
	if s.b.dt >= s.width/2 {
		s.emit(active, inFlight)
	}
}

func (s *series) emit(active time.Duration, inFlight int) {
	p := artifacts.PercentilesOf(s.bucket)
	s.pts = append(s.pts, artifacts.Point{
		T: round3(active.Seconds()), DT: round3(s.b.dt), RPS: round3(float64(s.b.requests) / s.b.dt),
		P50MS: p.P50, P99MS: p.P99, Errors: s.b.errs, InFlight: inFlight,
		RSSMB: round3(s.rssMB), FDs: s.fds, SelfMB: round3(s.selfMB),
	})
	s.bucket.Reset()
	s.b.dt, s.b.requests, s.b.errs = 0, 0, 0
	if len(s.pts) >= MaxSeriesPoints {
		s.thin()
	}
}

// thin merges neighbouring points in pairs: rates and latencies are
// averaged weighted by duration (the pair's exact percentiles are gone),
// counts are summed and the later point's resource figures kept.
func (s *series) thin() {
	out := s.pts[:0]
	for i := 0; i+1 < len(s.pts); i += 2 {
		a, b := s.pts[i], s.pts[i+1]
		dt := a.DT + b.DT
		w := func(x, y float64) float64 { return round3((x*a.DT + y*b.DT) / dt) }
		b.RPS, b.P50MS, b.P99MS = w(a.RPS, b.RPS), w(a.P50MS, b.P50MS), w(a.P99MS, b.P99MS)
		b.Errors += a.Errors
		b.DT = round3(dt)
		out = append(out, b)
	}
	if len(s.pts)%2 == 1 {
		out = append(out, s.pts[len(s.pts)-1])
	}
	s.pts = out
	s.width *= 2
}

func (s *series) points() []artifacts.Point {
	return append([]artifacts.Point(nil), s.pts...)
}
