package merge

import (
	"fmt"
	"slices"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/benchtui/benchtui/artifacts"
)

// shardIntervals reads one shard's interval log of a step, one interval
// at a time (a decoded histogram is large: only the head is held).
type shardIntervals struct {
	r      *hdrhistogram.HistogramLogReader
	name   string
	head   *hdrhistogram.Histogram
	n      int
	origin time.Time         // the start of the shard's first interval
	points []artifacts.Point // the shard's own series of the step
	next   int               // its first point not yet given to an interval
	// inFlight is the in-flight of the shard's last point given to an
	// interval: an interval without a point of the shard keeps it.
	inFlight int
}

func (s *shardIntervals) advance() error {
	h, err := s.r.NextIntervalHistogram()
	if err != nil {
		return fmt.Errorf("reading interval log of %s: %w", s.name, err)
	}
	if h != nil {
		if s.n++; s.n > artifacts.MaxIntervals {
			return fmt.Errorf("reading interval log of %s: more than %d intervals", s.name, artifacts.MaxIntervals)
		}
		if s.origin.IsZero() {
			s.origin = time.UnixMilli(h.StartTimeMs())
		}
		from, to := time.UnixMilli(h.StartTimeMs()), time.UnixMilli(h.EndTimeMs())
		if to.Before(from) || from.Before(s.origin) || to.Sub(s.origin).Seconds() > artifacts.MaxStepSeconds {
			return fmt.Errorf("reading interval log of %s: interval %d (%s to %s) is not within its step", s.name, s.n, from.UTC().Format(time.RFC3339Nano), to.UTC().Format(time.RFC3339Nano))
		}
	}
	s.head = h
	return nil
}

// mergeIntervals joins the shards' interval logs of step k into the
// merged step's interval log and its series, re-bucketed onto the logs'
// common grid: the shards tick on one clock from one start, so intervals
// starting within half an interval of each other cover the same time and
// their histograms merge into the whole's, exactly. A point's errors,
// in-flight and the target's figures (shard 0's) come from the shards'
// own series points whose middle falls in its interval. ok is false when
// a shard kept no interval log (then the series is joined point by point).
func mergeIntervals(parts []artifacts.ShardFile, k int) (log *artifacts.IntervalLog, series []artifacts.Point, ok bool, err error) {
	shards := make([]*shardIntervals, len(parts))
	for i, p := range parts {
		s := p.A.Steps[k]
		if s.HLogData == "" {
			return nil, nil, false, nil
		}
		shards[i] = &shardIntervals{r: hdrhistogram.NewHistogramLogReader(strings.NewReader(s.HLogData)),
			name: fmt.Sprintf("%s step %s", p.Path, s.Label), points: s.Series}
		if err := shards[i].advance(); err != nil {
			return nil, nil, false, err
		}
	}
	var origin time.Time
	for _, s := range shards {
		if s.head != nil && (origin.IsZero() || s.origin.Before(origin)) {
			origin = s.origin
		}
	}
	for _, s := range shards {
		if s.head != nil && s.origin.Sub(origin).Seconds() > artifacts.MaxStepSeconds {
			return nil, nil, false, fmt.Errorf("interval log of %s starts %s after another shard's: not the same step", s.name, s.origin.Sub(origin))
		}
	}
	log = artifacts.NewIntervalLog(origin)
	var pts []artifacts.Point
	var lengths []time.Duration
	var last artifacts.Point // the target's figures carry over an interval without a point of shard 0
	for {
		h, from, to, err := nextMergedInterval(shards)
		if err != nil {
			return log, nil, true, err
		}
		if h == nil {
			return log, withoutDrain(pts, lengths), true, nil
		}
		if err := log.Add(h, from, to); err != nil {
			return nil, nil, false, err
		}
		pt := intervalPoint(h, from, to, origin)
		if err := pointFigures(&pt, &last, shards, to); err != nil {
			return nil, nil, false, err
		}
		pts, lengths = append(pts, pt), append(lengths, to.Sub(from))
	}
}

// withoutDrain is the merged series: a point per interval but the last
// when it is the drain's own short interval (under half the median
// interval), which closes the log (its counts add up to the step's) but,
// as in a step's series, makes no point. The median, not the first
// interval, is the measure: on a busy machine the first tick of a shard
// can come late, and a long first interval made every later point look
// short and vanish.
func withoutDrain(pts []artifacts.Point, lengths []time.Duration) []artifacts.Point {
	if len(pts) == 0 {
		return []artifacts.Point{}
	}
	sorted := slices.Clone(lengths)
	slices.Sort(sorted)
	if median := sorted[len(sorted)/2]; len(pts) > 1 && lengths[len(lengths)-1] < median/2 {
		return pts[:len(pts)-1]
	}
	return pts
}

// nextMergedInterval merges the earliest head interval with every other
// shard's head that starts within half of its length, and advances those
// shards; nil when every log is read.
func nextMergedInterval(shards []*shardIntervals) (*hdrhistogram.Histogram, time.Time, time.Time, error) {
	var first *hdrhistogram.Histogram
	for _, s := range shards {
		if s.head != nil && (first == nil || s.head.StartTimeMs() < first.StartTimeMs()) {
			first = s.head
		}
	}
	if first == nil {
		return nil, time.Time{}, time.Time{}, nil
	}
	start, half := first.StartTimeMs(), max((first.EndTimeMs()-first.StartTimeMs())/2, 1)
	m := artifacts.NewHistogram()
	from, to := start, first.EndTimeMs()
	for _, s := range shards {
		if s.head == nil || s.head.StartTimeMs()-start >= half {
			continue
		}
		var sum sums
		if sum.merge("interval", m, s.head); sum.err != nil {
			return nil, time.Time{}, time.Time{}, fmt.Errorf("reading interval log of %s: %w", s.name, sum.err)
		}
		from, to = min(from, s.head.StartTimeMs()), max(to, s.head.EndTimeMs())
		if err := s.advance(); err != nil {
			return nil, time.Time{}, time.Time{}, err
		}
	}
	return m, time.UnixMilli(from), time.UnixMilli(to), nil
}

// intervalPoint is the series point of a merged interval: its rate and
// exact percentiles, timed from the step's start.
func intervalPoint(h *hdrhistogram.Histogram, from, to, origin time.Time) artifacts.Point {
	dt := to.Sub(from).Seconds()
	p := artifacts.PercentilesOf(h)
	pt := artifacts.Point{T: artifacts.RoundTo(to.Sub(origin).Seconds(), 1000), DT: artifacts.RoundTo(dt, 1000), P50MS: p.P50, P99MS: p.P99}
	if dt > 0 {
		pt.RPS = artifacts.RoundTo(float64(h.TotalCount())/dt, 1000)
	}
	return pt
}

// pointFigures gives pt, the point of an interval ending at to, the
// errors of the shards' points whose middle falls before to (each shard's
// clock from its own first interval; the last interval takes every point
// left), the in-flight of each shard's last such point (of its last point
// before, when the interval has none: its streams are still held), and
// the target's figures of shard 0's last such point, else last's. A sum
// that overflows is an error naming the shard's step.
func pointFigures(pt, last *artifacts.Point, shards []*shardIntervals, to time.Time) error {
	final := true
	for _, s := range shards {
		final = final && s.head == nil
	}
	var sum sums
	for i, s := range shards {
		for ; s.next < len(s.points); s.next++ {
			p := s.points[s.next]
			mid := s.origin.Add(time.Duration((p.T - p.DT/2) * float64(time.Second)))
			if !final && !mid.Before(to) {
				break
			}
			pt.Errors = sum.int("series errors", pt.Errors, p.Errors)
			s.inFlight = p.InFlight
			if i == 0 {
				*last = p
			}
		}
		pt.InFlight = int(sum.int("series in_flight", int64(pt.InFlight), int64(s.inFlight)))
		if sum.err != nil {
			return fmt.Errorf("merging: %s: %w", s.name, sum.err)
		}
	}
	pt.RSSMB, pt.FDs, pt.SelfMB = last.RSSMB, last.FDs, last.SelfMB
	return nil
}
