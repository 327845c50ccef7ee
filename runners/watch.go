package runners

import (
	"fmt"
	"sync"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// SampleEvery is how often the target and benchtui itself are sampled.
const SampleEvery = time.Second

// watch samples the step's target and benchtui itself, keeps the samples
// for the step's analysis, and applies the soak policy.
type watch struct {
	mu           sync.Mutex
	lastSample   time.Time
	target, self *ProcSample
	targetHist   []timedSample
	selfHist     []timedSample
}

type timedSample struct {
	t time.Duration // active time in the measured phase
	ProcSample
}

// sampleTarget takes a sample when one is due.
func (st *stepRun) sampleTarget(active time.Duration, measuring bool) {
	w := &st.watch
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.lastSample.IsZero() && now.Sub(w.lastSample) < SampleEvery-Tick/2 {
		return
	}
	w.lastSample = now
	w.target = takeSample(st.s.opts.Watch)
	w.self = takeSample(st.s.opts.Self)
	if w.target != nil && measuring {
		w.targetHist = appendBounded(w.targetHist, timedSample{active, *w.target})
	}
	if w.self != nil && measuring {
		w.selfHist = appendBounded(w.selfHist, timedSample{active, *w.self})
	}
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

func takeSample(w Watcher) *ProcSample {
	if w == nil {
		return nil
	}
	s, err := w.Sample()
	if err != nil {
		return nil
	}
	return &s
}

// maxSamples bounds the kept samples; beyond it every other one is dropped.
const maxSamples = 2048

func appendBounded(h []timedSample, s timedSample) []timedSample {
	if len(h) >= maxSamples {
		out := h[:0]
		for i := 0; i < len(h); i += 2 {
			out = append(out, h[i])
		}
		h = out
	}
	return append(h, s)
}

// fill puts the latest samples and the RSS verdict into a snapshot.
func (w *watch) fill(snap *Snapshot, s *Session) {
	w.mu.Lock()
	defer w.mu.Unlock()
	snap.Target, snap.Self, snap.TargetName = w.target, w.self, s.opts.TargetName
	hist := w.targetHist
	if w.target == nil {
		hist = w.selfHist
	}
	window, threshold := s.group.rssRule()
	snap.RSSSlope = tailSlope(hist, window)
	snap.RSSRising = len(hist) >= 5 && snap.RSSSlope > threshold
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
	slope := tailSlope(st.watch.targetHist, window)
	enough := len(st.watch.targetHist) >= 5
	st.watch.mu.Unlock()
	st.mu.Lock()
	room := rule.Max.D() - st.extended
	st.mu.Unlock()
	if !enough || slope <= threshold || room <= 0 {
		return false
	}
	why := fmt.Sprintf("RSS rising %.2f MB/min > %g MB/min", slope, threshold)
	return st.extend(min(rule.Step.D(), room), why)
}

// summarize adds the target's and benchtui's resource figures to a step.
func (w *watch) summarize(res *artifacts.Step, st *stepRun) {
	window, _ := st.s.group.rssRule()
	w.mu.Lock()
	defer w.mu.Unlock()
	res.Target = analyze(w.targetHist, window, int(st.env.units.Load()))
	res.Self = analyze(w.selfHist, window, 0)
}
