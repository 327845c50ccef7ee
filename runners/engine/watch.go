package engine

import (
	"fmt"
	"sync"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/watch"
)

// SampleEvery is how often the target and benchtui itself are sampled
// unless the target's `sample:` says otherwise.
const SampleEvery = time.Second

// Watcher samples a process's (or cgroup's) resources; *watch.Sampler is one.
type Watcher interface {
	Sample() (watch.Sample, error)
}

var _ runners.TargetHandle = (*watch.Process)(nil)

// watch samples the step's target and benchtui itself during the measured
// phase (heap growth while warming up is not a leak), keeps the samples in
// bounded histories for the step's analysis, and applies the soak policy.
type watchState struct {
	mu           sync.Mutex
	lastSample   time.Time
	target, self *ProcSample
	targetHist   watch.History
	selfHist     watch.History
	// before is the target's sample taken before the load began: the
	// start of its ranges.
	before *watch.Sample
	// others are the group's targets after the first (targets.go), and
	// sumHist the sums of all the group's targets' samples.
	others  []*otherWatch
	sumHist watch.History
}

// sampleBefore samples the target before the step's load begins.
func (st *stepRun) sampleBefore() {
	watcher, _ := st.s.watcher()
	if watcher == nil {
		return
	}
	if s, err := watcher.Sample(); err == nil {
		st.watched.mu.Lock()
		st.watched.before = &s
		st.watched.mu.Unlock()
	}
	st.watched.sampleOthersBefore()
}

// sampleTarget takes a sample, timed at wall (since the phase began,
// pauses included), when one is due.
func (st *stepRun) sampleTarget(wall time.Duration, measuring bool) {
	st.sample(wall, measuring, false)
}

// sampleAtEnd samples once more as the measured window closes, due or
// not: a step's end figures are its end's, and a step shorter than the
// sampling interval (a driver's few cycles) still has its samples.
func (st *stepRun) sampleAtEnd(wall time.Duration) {
	st.sample(wall, true, true)
}

func (st *stepRun) sample(wall time.Duration, measuring, force bool) {
	w := &st.watched
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if !force && !w.lastSample.IsZero() && now.Sub(w.lastSample) < st.s.opts.sampleEvery()-Tick/2 {
		return
	}
	w.lastSample = now
	watcher, _ := st.s.watcher()
	w.target = takeSample(watcher, &w.targetHist, wall, measuring)
	w.self = takeSample(st.s.opts.Self, &w.selfHist, wall, measuring)
	w.sampleOthers(wall, measuring)
	var rss, fds, self float64
	if w.target != nil {
		rss, fds = w.target.RSSMB, float64(w.target.FDs)
	}
	if w.self != nil {
		self = w.self.RSSMB
	}
	st.tally.mu.Lock()
	st.tally.series.target(rss, fds, self)
	st.tally.mu.Unlock()
}

func takeSample(w Watcher, h *watch.History, at time.Duration, measuring bool) *ProcSample {
	if w == nil {
		return nil
	}
	s, pid, err := sampleOf(w)
	if err != nil {
		return nil
	}
	if measuring {
		h.Add(watch.TimedSample{T: at, Sample: s})
	}
	return &ProcSample{RSSMB: s.RSSMB(), FDs: s.FDs, Threads: s.Threads, CPUCores: s.CPUCores, CPUSeconds: s.CPUSeconds, PID: pid,
		WorkingSetMB: max(0, mb(s.WorkingSetBytes)), PSSMB: max(0, mb(s.PSSBytes))}
}

// minSlopeSamples is how many samples a slope needs before it is believed.
const minSlopeSamples = 5

// fill puts the latest samples and the RSS verdict into a snapshot: the
// target's, else benchtui's own.
func (w *watchState) fill(snap *Snapshot, s *Session) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, name := s.watcher()
	snap.Target, snap.Self, snap.TargetName = w.target, w.self, name
	snap.Others = w.othersSnapshot()
	hist := w.histOf(s.group.SoakTarget(), name)
	if w.target == nil || hist == nil {
		hist = &w.selfHist
	}
	window, threshold := s.group.SoakRule()
	snap.RSS = rssTrend(hist, window, threshold)
}

// rssTrend is the RSS trend of the samples in hist so far, judged as the
// step's artifact will judge them.
func rssTrend(hist *watch.History, window time.Duration, threshold float64) RSSTrend {
	if hist.Len() == 0 {
		return RSSTrend{}
	}
	st := hist.Analyze(0, window, 0)
	return RSSTrend{Slope: st.RSSSlopeMBPerMin, SE: st.RSSSlopeSE, SpanS: st.SpanS, Rising: st.RSSRising,
		Tail: st.RSSTailSlopeMBMin, TailWindowS: st.TailWindowS,
		TailAbove: hist.Len() >= minSlopeSamples && st.RSSTailSlopeMBMin > threshold}
}

// soakExtend applies the soak policy at the end of the planned time: while
// the target's RSS tail slope is above the threshold, extend by the rule's
// step up to its max. It reports whether it extended.
func (st *stepRun) soakExtend() bool {
	g := st.s.group
	if g.Soak == nil || g.Soak.ExtendWhileRSSRising == nil {
		return false
	}
	rule := g.Soak.ExtendWhileRSSRising
	window, threshold := g.SoakRule()
	st.watched.mu.Lock()
	hist := st.watched.histOf(g.SoakTarget(), st.s.opts.TargetName)
	if hist == nil {
		hist = &st.watched.targetHist
	}
	slope := hist.TailSlope(window)
	enough := hist.Len() >= minSlopeSamples
	st.watched.mu.Unlock()
	st.mu.Lock()
	extended := st.extended
	st.mu.Unlock()
	if !enough || !watch.ShouldExtend(slope, threshold, extended, rule.Step.D(), st.soakLimit()) {
		return false
	}
	return st.extend(rule.Step.D(), fmt.Sprintf("%sRSS rising %.2f MB/min > %g MB/min", soakWho(g.SoakTarget(), len(st.watched.others)), slope, threshold))
}

// summarize adds the target's and benchtui's resource figures to a step.
func (w *watchState) summarize(res *artifacts.Step, st *stepRun) {
	window, _ := st.s.group.SoakRule()
	w.mu.Lock()
	defer w.mu.Unlock()
	res.Target = analyzed(&w.targetHist, window, st.env.PeakUnits())
	if res.Target != nil && w.before != nil {
		watch.StartBefore(res.Target, *w.before, st.env.PeakUnits())
	}
	res.Self = analyzed(&w.selfHist, window, 0)
	w.summarizeTargets(res, st.s.opts.TargetName, window, st.env.PeakUnits())
}

func analyzed(h *watch.History, window time.Duration, units int) *artifacts.TargetStats {
	if h.Len() == 0 {
		return nil
	}
	s := h.Analyze(0, window, units)
	return &s
}

// mb is bytes in MiB.
func mb(b int64) float64 { return float64(b) / (1 << 20) }
