package watch

import "github.com/benchtui/benchtui/artifacts"

// addMemoryKinds sets the figures of st that only some targets have: PSS
// and USS of a tree, and a cgroup's working set, kernel peak, throttling
// and OOM kills (counters as what the samples added).
func addMemoryKinds(st *artifacts.TargetStats, samples []TimedSample) {
	first, last := samples[0], samples[len(samples)-1]
	st.PSSMB = rangeOf(samples, func(s Sample) int64 { return s.PSSBytes })
	st.USSMB = rangeOf(samples, func(s Sample) int64 { return s.USSBytes })
	st.WorkingSetMB = rangeOf(samples, func(s Sample) int64 { return s.WorkingSetBytes })
	for _, s := range samples {
		st.KernelPeakMB = max(st.KernelPeakMB, float64(s.MemPeakBytes)/bytesPerMB)
	}
	st.ThrottledPeriods = max(0, last.ThrottledPeriods-first.ThrottledPeriods)
	st.ThrottledS = max(0, last.ThrottledSeconds-first.ThrottledSeconds)
	st.OOMKills = max(0, last.OOMKills-first.OOMKills)
}

// rangeOf is the start, peak and end in MB of a figure over the samples
// where it was read (> 0); nil when it never was, or was unreadable (< 0)
// in any sample, since a sum with a missing process would understate.
func rangeOf(samples []TimedSample, of func(Sample) int64) *artifacts.Range {
	var r *artifacts.Range
	for _, s := range samples {
		v := of(s.Sample)
		if v < 0 {
			return nil
		}
		if v == 0 {
			continue
		}
		mb := float64(v) / bytesPerMB
		if r == nil {
			r = &artifacts.Range{Start: mb, Peak: mb}
		}
		r.Peak = max(r.Peak, mb)
		r.End = mb
	}
	return r
}

// maxPeaks raises the per-field maxima in peak to those of s.
func maxPeaks(peak *Sample, s Sample) {
	peak.RSSBytes = max(peak.RSSBytes, s.RSSBytes)
	peak.FDs = max(peak.FDs, s.FDs)
	peak.Threads = max(peak.Threads, s.Threads)
	peak.PSSBytes = max(peak.PSSBytes, s.PSSBytes)
	peak.USSBytes = max(peak.USSBytes, s.USSBytes)
	peak.WorkingSetBytes = max(peak.WorkingSetBytes, s.WorkingSetBytes)
	peak.MemPeakBytes = max(peak.MemPeakBytes, s.MemPeakBytes)
}

// raisePeaks lifts the peaks of st's optional ranges to the exact maxima
// of every sample a History saw, thinned or not.
func raisePeaks(st *artifacts.TargetStats, peak Sample) {
	for _, p := range []struct {
		r *artifacts.Range
		v int64
	}{{st.PSSMB, peak.PSSBytes}, {st.USSMB, peak.USSBytes}, {st.WorkingSetMB, peak.WorkingSetBytes}} {
		if p.r != nil {
			p.r.Peak = max(p.r.Peak, float64(p.v)/bytesPerMB)
		}
	}
	st.KernelPeakMB = max(st.KernelPeakMB, float64(peak.MemPeakBytes)/bytesPerMB)
}
