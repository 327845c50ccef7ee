//go:build linux

package httpload

import (
	"math"
	"time"

	"github.com/benchtui/benchtui/runners"
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

// arrivals sends the arrivals due by now on idle connections, each
// measured from its due time; those that find every connection busy are
// dropped and counted, as the engine's open loop does. It sends at most
// one arrival per connection per wake-up.
func (l *evLoop) arrivals(now time.Time) {
	if l.stopping || l.paused {
		return
	}
	s := l.sched
	s.shift = l.env.Gate().PausedTotal() - s.pausedBefore
	last := s.lastDue(now)
	for ; s.next <= last; s.next++ {
		if len(l.ready) == 0 {
			l.env.Recorder(0).Drop(last - s.next + 1)
			s.next = last + 1
			return
		}
		c := l.ready[len(l.ready)-1]
		l.ready = l.ready[:len(l.ready)-1]
		due := s.due(s.next)
		if now.Sub(due) > runners.LateAfter {
			c.rec.Count(runners.CounterLate, 1)
		}
		l.startAt(c, due, now)
	}
}

// untilNext is how long until the loop's next arrival is due.
func (l *evLoop) untilNext(now time.Time) time.Duration {
	return max(l.sched.due(l.sched.next).Sub(now), 0)
}
