package livemerge

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
)

// stepKey names one step of one group of a distributed run.
type stepKey struct {
	group string
	step  int
}

// stepLines are the shards' latest lines of one step, by shard.
type stepLines map[int]Line

// merged are the shards' lines of one step added up: counts summed,
// histograms merged, the longest elapsed time. recent is the shards'
// latest intervals merged (each shard's operations since its line
// before), recentRPS their rates summed, recentShards how many had one.
type merged struct {
	last                      Line // the most recent line
	hist, recent              *hdrhistogram.Histogram
	requests, errors, dropped int64
	inFlight, shards, done    int
	elapsed, recentRPS        float64
	recentShards              int
}

func (ls stepLines) merge() merged {
	m := merged{hist: artifacts.NewHistogram(), recent: artifacts.NewHistogram()}
	for _, l := range ls {
		if d, err := artifacts.DecodeHistogram(l.recent.hist); err == nil && l.recent.seconds > 0 {
			m.recent.Merge(d)
			m.recentRPS += float64(l.recent.requests) / l.recent.seconds
			m.recentShards++
		}
		m.shards++
		m.requests, m.errors, m.dropped, m.inFlight = m.requests+l.Requests, m.errors+l.Errors, m.dropped+l.Dropped, m.inFlight+l.InFlight
		m.elapsed = max(m.elapsed, l.Elapsed)
		if l.Phase == string(engine.PhaseDone) {
			m.done++
		}
		if d, err := artifacts.DecodeHistogram(l.Hist); err == nil && l.Hist != "" {
			m.hist.Merge(d)
		}
		if l.At.After(m.last.At) {
			m.last = l
		}
	}
	return m
}

// stats are m's figures as a snapshot's Stats.
func (m merged) stats() engine.Stats {
	p := artifacts.PercentilesOf(m.hist)
	st := engine.Stats{Requests: m.requests, Errors: m.errors, Dropped: m.dropped, P50: p.P50, P90: p.P90, P99: p.P99, Max: p.Max}
	if m.elapsed > 0 {
		st.RPS = float64(m.requests) / m.elapsed
	}
	return st
}

// now are the figures of the shards' latest intervals, the live view's
// "now" (Interval); the step's so far until every shard has one.
func (m merged) now() engine.Stats {
	if m.recentShards < m.shards {
		return m.stats()
	}
	p := artifacts.PercentilesOf(m.recent)
	return engine.Stats{Requests: m.recent.TotalCount(), RPS: m.recentRPS, P50: p.P50, P90: p.P90, P99: p.P99, Max: p.Max}
}

// step is m as a finished step of an artifact (the live view's; merge
// gives the exact one).
func (m merged) step() artifacts.Step {
	enc, _ := artifacts.EncodeHistogram(m.hist)
	s := artifacts.Step{Label: m.last.Label, Requests: m.requests, Errors: m.errors, Dropped: m.dropped,
		DurationS: m.elapsed, LatencyMS: artifacts.PercentilesOf(m.hist), Histogram: enc,
		Series: []artifacts.Point{}, Checks: []artifacts.Check{}, Events: []artifacts.Event{}}
	if m.elapsed > 0 {
		s.ThroughputRPS = float64(m.requests) / m.elapsed
	}
	return s
}

// Run gathers the shards' lines by step and turns them into the
// snapshots the console draws, one stream per group it follows.
type Run struct {
	mu     sync.Mutex
	pl     *plan.Plan
	steps  map[stepKey]stepLines
	series map[stepKey][]artifacts.Point
	// counted is each step's request and error counts at its last point.
	counted map[stepKey]counted
	count   int
	held    int // bytes of the kept lines' histograms
	// Stale is how long a shard may be silent before the console's step
	// line names it (0: never). Set it before the lines come.
	Stale time.Duration
	feeds map[string]chan engine.Snapshot
	ended bool
}

// counted are a step's counts at a point of its live series.
type counted struct{ requests, errors int64 }

// NewRun returns a Run of plan pl (nil: a plain follower of lines, no
// console).
func NewRun(pl *plan.Plan) *Run {
	return &Run{pl: pl, steps: map[stepKey]stepLines{}, series: map[stepKey][]artifacts.Point{},
		counted: map[stepKey]counted{}, feeds: map[string]chan engine.Snapshot{}}
}

// Bounds of a live view: the steps it keeps (of all groups), and the
// bytes of encoded histograms its kept lines hold.
const (
	maxSteps = 1000
	maxBytes = 256 << 20
)

// Add keeps a live line.
// A line that names an impossible shard or step, a step past
// maxSteps distinct ones, or a new shard's line past maxBytes of
// histograms held, is dropped: a log is read as it comes.
func (r *Run) Add(l Line) {
	if l.Count < 1 || l.Count > artifacts.MaxShards || l.Shard < 0 || l.Shard >= l.Count || l.Step < 1 || l.Step > l.Steps {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := stepKey{l.Group, l.Step}
	if r.steps[k] == nil {
		if len(r.steps) >= maxSteps {
			return
		}
		r.steps[k] = stepLines{}
	}
	prev, had := r.steps[k][l.Shard]
	if !had && r.held+len(l.Hist) > maxBytes {
		return
	}
	if had {
		l.recent = l.since(prev)
	}
	r.held += len(l.Hist) + len(l.recent.hist) - len(prev.Hist) - len(prev.recent.hist)
	r.steps[k][l.Shard] = l
	r.count = max(r.count, l.Count)
}

// Publish sends each followed group its snapshot; at the end of the
// lines it closes the feeds.
func (r *Run) Publish(end bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, feed := range r.feeds {
		if snap, ok := r.snapshotLocked(id); ok {
			replace(feed, snap)
		}
		if end {
			close(feed)
		}
	}
	if end {
		r.feeds, r.ended = map[string]chan engine.Snapshot{}, true
	}
}

// replace puts snap in feed (of capacity 1), dropping an unread one.
func replace(feed chan engine.Snapshot, snap engine.Snapshot) {
	for {
		select {
		case feed <- snap:
			return
		default:
		}
		select {
		case <-feed:
		default:
		}
	}
}

// snapshotLocked is group id's snapshot: its latest step merged, the steps
// before it finished.
func (r *Run) snapshotLocked(id string) (engine.Snapshot, bool) {
	cur := 0
	for k := range r.steps {
		if k.group == id {
			cur = max(cur, k.step)
		}
	}
	if cur == 0 {
		return engine.Snapshot{}, false
	}
	k := stepKey{id, cur}
	m := r.steps[k].merge()
	state := engine.StateRunning
	if m.done >= r.count && m.last.Step == m.last.Steps {
		state = engine.StateDone
	}
	snap := engine.Snapshot{GroupID: id, State: state, Phase: engine.Phase(m.last.Phase), Step: cur, Steps: m.last.Steps,
		StepLabel: fmt.Sprintf("%s · %d/%d shards%s", m.last.Label, m.shards, r.count, r.staleLocked(k, time.Now(), m.elapsed)),
		Elapsed:   time.Duration(m.elapsed * float64(time.Second)), Total: m.stats(), InFlight: m.inFlight}
	snap.Interval = m.now()
	snap.Series = r.pointLocked(k, m)
	for s := 1; s < cur; s++ {
		if ls := r.steps[stepKey{id, s}]; ls != nil {
			snap.Done = append(snap.Done, ls.merge().step())
		}
	}
	if state == engine.StateDone {
		snap.Done = append(snap.Done, m.step())
	}
	return snap, true
}

// staleLocked names the shards of step k that lag: silent longer than
// r.Stale before now, or, once the step has run that long (elapsed),
// without a line of it: " · s2 stale 7s, s3 missing", at most
// maxLateNames of them; "" when every shard keeps up.
func (r *Run) staleLocked(k stepKey, now time.Time, elapsed float64) string {
	if r.Stale <= 0 {
		return ""
	}
	var late []string
	n := 0
	for i := range r.count {
		l, ok := r.steps[k][i]
		name := ""
		switch {
		case !ok && elapsed > r.Stale.Seconds():
			name = fmt.Sprintf("s%d missing", i)
		case ok && l.Phase != string(engine.PhaseDone) && now.Sub(l.At) > r.Stale:
			name = fmt.Sprintf("s%d stale %s", i, now.Sub(l.At).Round(time.Second))
		}
		if name == "" {
			continue
		}
		if n++; n <= maxLateNames {
			late = append(late, name)
		}
	}
	if n > maxLateNames {
		late = append(late, fmt.Sprintf("+%d more", n-maxLateNames))
	}
	if n == 0 {
		return ""
	}
	return " · " + strings.Join(late, ", ")
}

// maxLateNames bounds the lagging shards a step line names.
const maxLateNames = 4

// pointLocked adds the step's point of this second to its series: the
// rate since the last point, the percentiles of the shards' latest
// intervals.
func (r *Run) pointLocked(k stepKey, m merged) []artifacts.Point {
	pts := r.series[k]
	if n := len(pts); n > 0 && m.elapsed <= pts[n-1].T {
		return append([]artifacts.Point(nil), pts...) // no new second
	}
	now, before := m.now(), r.counted[k]
	// A shard's newer line may count less than its older one did (a
	// restarted shard): a point never shows a negative rate or count.
	pt := artifacts.Point{T: m.elapsed, P50MS: now.P50, P99MS: now.P99, Errors: max(m.errors-before.errors, 0), InFlight: m.inFlight}
	if n := len(pts); n > 0 {
		pt.DT = m.elapsed - pts[n-1].T
		pt.RPS = float64(max(m.requests-before.requests, 0)) / pt.DT
	}
	r.counted[k] = counted{requests: m.requests, errors: m.errors}
	pts = append(pts, pt)
	if len(pts) > 3600 {
		pts = pts[1:]
	}
	r.series[k] = pts
	return append([]artifacts.Point(nil), pts...)
}

// Session is ui.Engine's: a session that follows group g's figures.
func (r *Run) Session(_ context.Context, g *plan.Group) (*engine.Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return nil, fmt.Errorf("group %s: the distributed run's lines have ended", g.ID)
	}
	feed := make(chan engine.Snapshot, 1)
	r.feeds[g.ID] = feed
	return engine.NewRemoteSession(r.pl, g, feed), nil
}

// RestartTarget is ui.Engine's: a distributed run's targets are not this
// process's.
func (r *Run) RestartTarget(name string) error {
	return fmt.Errorf("target %s: watched by the shards, not restarted from here", name)
}

// Follow keeps the live lines and calls tick once a second, and once
// more with end set when the lines end; it returns then or when ctx ends.
func (r *Run) Follow(ctx context.Context, lines <-chan string, tick func(end bool)) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case s, ok := <-lines:
			if !ok {
				tick(true)
				return
			}
			if l, ok := ParseLine(s); ok {
				r.Add(l)
			}
		case <-t.C:
			tick(false)
		case <-ctx.Done():
			return
		}
	}
}

// Seen reports whether any live line was kept.
func (r *Run) Seen() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.steps) > 0
}

// Status is the merged figures of the step the newest line is on, and each
// shard's lag: `stale` past stale, or the step it is on when elsewhere.
func (r *Run) Status(now time.Time, stale time.Duration) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	newest := r.newestLocked()
	if len(newest) == 0 {
		return "no live lines yet"
	}
	var cur Line
	for _, l := range newest {
		if l.At.After(cur.At) {
			cur = l
		}
	}
	k := stepKey{cur.Group, cur.Step}
	m := r.steps[k].merge()
	st := m.stats()
	pts := r.pointLocked(k, m)
	var lags []string
	for _, i := range slices.Sorted(maps.Keys(newest)) {
		l, lag := newest[i], now.Sub(newest[i].At).Round(100*time.Millisecond)
		state := fmt.Sprintf("s%d %s", i, lag)
		switch {
		case l.Group != cur.Group || l.Step != cur.Step:
			state = fmt.Sprintf("s%d on %s step %d", i, l.Group, l.Step)
		case lag > stale && l.Phase != string(engine.PhaseDone):
			state = fmt.Sprintf("s%d stale %s", i, lag)
		}
		lags = append(lags, state)
	}
	return fmt.Sprintf("%s step %d/%d %s %s %.0fs: shards %d/%d requests %d rps %.0f p50 %.2fms p99 %.2fms errors %d dropped %d in-flight %d | %s",
		cur.Group, cur.Step, cur.Steps, cur.Label, cur.Phase, m.elapsed, m.shards, r.count, m.requests, pts[len(pts)-1].RPS,
		st.P50, st.P99, m.errors, m.dropped, m.inFlight, strings.Join(lags, ", "))
}

// newestLocked is each shard's most recent line, whatever its step.
func (r *Run) newestLocked() map[int]Line {
	out := map[int]Line{}
	for _, ls := range r.steps {
		for i, l := range ls {
			if l.At.After(out[i].At) {
				out[i] = l
			}
		}
	}
	return out
}
