package spawn

import (
	"maps"
	"math"
	"slices"
	"sync"
)

// trendCycles is how many cycles the warm-up trend compares at each end.
const trendCycles = 10

// Summary is what a spawn step measured beyond the engine's histograms.
type Summary struct {
	// Cycles counts the measured cycles that reached ready.
	Cycles int64
	// Failed counts the measured cycles that did not, by error kind.
	Failed map[string]int64
	// First10P50MS and Last10P50MS are the median times to ready of the
	// first and the last ten ready cycles: the warm-up trend.
	First10P50MS, Last10P50MS float64
	// SelfRSSMBPerCycle is the least-squares slope of benchtui's own RSS
	// over the cycle number: a leak in the spawning side shows here.
	SelfRSSMBPerCycle float64
	// SelfRSSMBFirst and SelfRSSMBLast are benchtui's RSS after the first
	// and the last measured cycle.
	SelfRSSMBFirst, SelfRSSMBLast float64
	// StopKilled counts ready processes that needed SIGKILL to stop.
	StopKilled int64
}

// cycleStats keeps a step's trend figures in constant memory: the first
// and last ten times to ready, and a running least-squares fit of RSS.
type cycleStats struct {
	mu     sync.Mutex
	sum    Summary
	first  []float64
	last   [trendCycles]float64
	lastN  int
	fit    fit
	rssSet bool
}

func newCycleStats() *cycleStats {
	return &cycleStats{sum: Summary{Failed: map[string]int64{}}}
}

// add records a measured cycle: its kind, its time to ready in ms when it
// succeeded, and benchtui's RSS after it (negative: not sampled).
func (s *cycleStats) add(kind string, ms float64, killed bool, rssMB float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if killed {
		s.sum.StopKilled++
	}
	if rssMB >= 0 {
		s.fit.add(float64(s.sum.Cycles+sumValues(s.sum.Failed)), rssMB)
		if !s.rssSet {
			s.sum.SelfRSSMBFirst, s.rssSet = rssMB, true
		}
		s.sum.SelfRSSMBLast = rssMB
	}
	if kind != "" {
		s.sum.Failed[kind]++
		return
	}
	s.sum.Cycles++
	if len(s.first) < trendCycles {
		s.first = append(s.first, ms)
	}
	s.last[s.lastN%trendCycles] = ms
	s.lastN++
}

// summary returns a copy of the figures so far.
func (s *cycleStats) summary() Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.sum
	out.Failed = maps.Clone(s.sum.Failed)
	out.First10P50MS = median(s.first)
	out.Last10P50MS = median(s.last[:min(s.lastN, trendCycles)])
	out.SelfRSSMBPerCycle = s.fit.slope()
	return out
}

func sumValues(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// median of xs, 0 when empty; xs is not changed.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// fit is a running least-squares line fit of y over x.
type fit struct{ n, sx, sy, sxx, sxy float64 }

func (f *fit) add(x, y float64) {
	f.n++
	f.sx += x
	f.sy += y
	f.sxx += x * x
	f.sxy += x * y
}

// slope of the fitted line, 0 with fewer than two distinct x.
func (f *fit) slope() float64 {
	den := f.n*f.sxx - f.sx*f.sx
	if f.n < 2 || den == 0 {
		return 0
	}
	s := (f.n*f.sxy - f.sx*f.sy) / den
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return 0
	}
	return s
}
