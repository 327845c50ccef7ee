package runners

import (
	"fmt"
	"sync"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/target"
)

// SampleEvery is how often the target and benchtui itself are sampled
// unless the target's `sample:` says otherwise.
const SampleEvery = time.Second

// Watcher samples a process's (or cgroup's) resources; *target.Sampler is one.
type Watcher interface {
	Sample() (target.Sample, error)
}

var _ TargetHandle = (*target.Process)(nil)

// watch samples the step's target and benchtui itself during the measured
// phase (heap growth while warming up is not a leak), keeps the samples in
// bounded histories for the step's analysis, and applies the soak policy.
type watch struct {
	mu           sync.Mutex
	lastSample   time.Time
	target, self *ProcSample
	targetHist   target.History
	selfHist     target.History
}

// sampleTarget takes a sample when one is due.
func (st *stepRun) sampleTarget(active time.Duration, measuring bool) {
	w := &st.watch
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.lastSample.IsZero() && now.Sub(w.lastSample) < st.s.opts.sampleEvery()-Tick/2 {
		return
	}
	w.lastSample = now
	watcher, _ := st.s.watcher()
	w.target = takeSample(watcher, &w.targetHist, active, measuring)
	w.self = takeSample(st.s.opts.Self, &w.selfHist, active, measuring)
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

func takeSample(w Watcher, h *target.History, active time.Duration, measuring bool) *ProcSample {
	if w == nil {
		return nil
	}
	s, err := w.Sample()
	if err != nil {
		return nil
	}
	if measuring {
		h.Add(target.TimedSample{T: active, Sample: s})
	}
	return &ProcSample{RSSMB: s.RSSMB(), FDs: s.FDs, Threads: s.Threads, CPUCores: s.CPUCores}
}

// minSlopeSamples is how many samples a slope needs before it is believed.
const minSlopeSamples = 5

// fill puts the latest samples and the RSS verdict into a snapshot: the
// target's, else benchtui's own.
func (w *watch) fill(snap *Snapshot, s *Session) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, name := s.watcher()
	snap.Target, snap.Self, snap.TargetName = w.target, w.self, name
	hist := &w.targetHist
	if w.target == nil {
		hist = &w.selfHist
	}
	window, threshold := s.group.rssRule()
	snap.RSSSlope = hist.TailSlope(window)
	snap.RSSRising = hist.Len() >= minSlopeSamples && snap.RSSSlope > threshold
}

// rssRule is the group's soak window and slope threshold, with defaults
// for groups without a soak policy.
func (g *Group) rssRule() (window time.Duration, slope float64) {
	window, slope = 60*time.Second, 1.0
	if g.Soak != nil && g.Soak.ExtendWhileRSSRising != nil {
		r := g.Soak.ExtendWhileRSSRising
		slope = r.SlopeMBPerMin
		if r.Window.D() > 0 {
			window = r.Window.D()
		}
	}
	return window, slope
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
	window, threshold := g.rssRule()
	st.watch.mu.Lock()
	slope := st.watch.targetHist.TailSlope(window)
	enough := st.watch.targetHist.Len() >= minSlopeSamples
	st.watch.mu.Unlock()
	st.mu.Lock()
	extended := st.extended
	st.mu.Unlock()
	if !enough || !target.ShouldExtend(slope, threshold, extended, rule.Step.D(), rule.Max.D()) {
		return false
	}
	return st.extend(rule.Step.D(), fmt.Sprintf("RSS rising %.2f MB/min > %g MB/min", slope, threshold))
}

// summarize adds the target's and benchtui's resource figures to a step.
func (w *watch) summarize(res *artifacts.Step, st *stepRun) {
	window, _ := st.s.group.rssRule()
	w.mu.Lock()
	defer w.mu.Unlock()
	res.Target = analyzed(&w.targetHist, window, int(st.env.units.Load()))
	res.Self = analyzed(&w.selfHist, window, 0)
}

func analyzed(h *target.History, window time.Duration, units int) *artifacts.TargetStats {
	if h.Len() == 0 {
		return nil
	}
	s := h.Analyze(0, window, units)
	return &s
}
