//go:build linux

package evloop

import (
	"math"
	"time"
)

// schedule is one loop's share of an open loop's arrivals, as the
// engine's dispatcher computes them: the step's arrival g is due at start
// + g/rate + the time paused since, whatever the server does; the loop
// owns the arrivals g = k*stride + offset, so that its loops together
// keep the step's rate.
type schedule struct {
	start          time.Time
	rate           float64
	stride, offset int64
	next           int64         // the loop's next arrival, k
	pausedBefore   time.Duration // the gate's paused total at start
	shift          time.Duration // paused since start
}

// maxArrival bounds arrival indexes (as the engine's dispatcher does), so
// that an absurd rate cannot overflow them.
const maxArrival = int64(1) << 53

// due is when the loop's arrival k is due.
func (s *schedule) due(k int64) time.Time {
	g := k*s.stride + s.offset
	return s.start.Add(s.shift + time.Duration(float64(g)*float64(time.Second)/s.rate))
}

// lastDue is the loop's last arrival due by now (s.next-1: none). Past
// maxArrival (or at an infinite rate, where the product may be NaN) every
// arrival is due: one per wake-up, sent or dropped.
func (s *schedule) lastDue(now time.Time) int64 {
	f := now.Sub(s.start.Add(s.shift)).Seconds() * s.rate
	if !(f < float64(maxArrival)) {
		return max(s.next, maxArrival/s.stride)
	}
	g := int64(math.Floor(f))
	if g < s.offset {
		return s.next - 1
	}
	return (g - s.offset) / s.stride
}
