package watch

import (
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// DefaultHistoryLimit is the number of samples a zero History keeps: at a
// sample a second, the last 1000 (16 minutes) always at full resolution.
const DefaultHistoryLimit = 2000

// History is a step's samples in constant memory: when it holds its limit,
// the older half is thinned by dropping every second sample, so the recent
// samples (those a tail slope needs) stay dense and older ones grow sparse.
// The first sample, the latest and the peaks are always exact. The zero
// value is ready to use; a History has one owner (no locks).
type History struct {
	limit   int
	samples []TimedSample
	peak    Sample // per field maxima
}

// NewHistory returns a History that keeps at most limit samples (at least 8).
func NewHistory(limit int) *History {
	return &History{limit: max(limit, 8)}
}

// Add appends a sample, which must not be older than the last one.
func (h *History) Add(s TimedSample) {
	if h.limit == 0 {
		h.limit = DefaultHistoryLimit
	}
	if h.samples == nil {
		h.samples = make([]TimedSample, 0, h.limit)
	}
	if len(h.samples) >= h.limit {
		h.thin()
	}
	h.samples = append(h.samples, s)
	maxPeaks(&h.peak, s.Sample)
}

// thin keeps the first sample, every second sample of the older half, and
// the newer half as it is: from n samples to about 3n/4.
func (h *History) thin() {
	s := h.samples
	half := len(s) / 2
	out := 1
	for i := 2; i < half; i += 2 {
		s[out] = s[i]
		out++
	}
	out += copy(s[out:], s[half:])
	h.samples = s[:out]
}

// Len is the number of samples kept.
func (h *History) Len() int { return len(h.samples) }

// Samples returns a copy of the kept samples, oldest first.
func (h *History) Samples() []TimedSample {
	return append([]TimedSample(nil), h.samples...)
}

// Last returns the latest sample, false when there is none.
func (h *History) Last() (TimedSample, bool) {
	if len(h.samples) == 0 {
		return TimedSample{}, false
	}
	return h.samples[len(h.samples)-1], true
}

// TailSlope is the RSS slope in MB/min over the last window of samples.
func (h *History) TailSlope(window time.Duration) float64 {
	return TailSlopeMBPerMin(h.samples, window)
}

// Analyze is Analyze of the kept samples, with the exact peaks of every
// sample added, thinned or not.
func (h *History) Analyze(warmupEnd, tailWindow time.Duration, units int) artifacts.TargetStats {
	st := Analyze(h.samples, warmupEnd, tailWindow, units)
	if len(h.samples) == 0 {
		return st
	}
	st.RSSMB.Peak = max(st.RSSMB.Peak, h.peak.RSSMB())
	st.Threads.Peak = max(st.Threads.Peak, float64(h.peak.Threads))
	raisePeaks(&st, h.peak)
	if h.peak.FDs >= 0 && st.FDs.Peak < float64(h.peak.FDs) {
		st.FDs.Peak = float64(h.peak.FDs)
		st.FDsPerUnit = fdsPerUnit(st.FDs, units)
	}
	return st
}
