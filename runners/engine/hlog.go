package engine

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchtui/benchtui/artifacts"
)

// hlog gathers a step's measured ticks into intervals of the group's
// block (default 1 s) of active time and appends each, as it closes, to
// the step's HdrHistogram interval log. Past MaxBlocks intervals the
// length doubles (and again at each further MaxBlocks), so a day-long
// soak's log stays a few megabytes.
type hlog struct {
	log   *artifacts.IntervalLog
	open  *hdrhistogram.Histogram
	from  time.Time // wall time the open interval began
	dt    float64   // active seconds in the open interval
	width float64
}

func newHLog(width time.Duration, start time.Time) *hlog {
	return &hlog{log: artifacts.NewIntervalLog(start), open: artifacts.NewHistogram(), from: start, width: width.Seconds()}
}

// add merges one tick's latencies, dt active seconds ending at now.
func (l *hlog) add(iv *hdrhistogram.Histogram, dt float64, now time.Time) {
	l.open.Merge(iv)
	l.dt += dt
	if l.dt >= l.width-Tick.Seconds()/2 {
		l.flush(now)
	}
}

// flush closes the open interval at now; an empty one is left out.
func (l *hlog) flush(now time.Time) {
	if l.open.TotalCount() > 0 {
		// Add fails only on a tag with a comma, and there is no tag.
		_ = l.log.Add(l.open, l.from, now)
		if l.log.Len()%MaxBlocks == 0 {
			l.width *= 2
		}
	}
	l.open.Reset()
	l.from, l.dt = now, 0
}

// snapshot is the log so far with the open interval closed at now, for
// a result taken while the step runs; l itself is unchanged.
func (l *hlog) snapshot(now time.Time) *artifacts.IntervalLog {
	c := l.log.Clone()
	if l.open.TotalCount() > 0 {
		_ = c.Add(l.open, l.from, now)
	}
	return c
}
