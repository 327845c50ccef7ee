package runners

import (
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// slopePerMin is the least-squares slope of ys over ts, per minute.
func slopePerMin(ts []time.Duration, ys []float64) float64 {
	n := float64(len(ts))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i, t := range ts {
		x := t.Minutes()
		sx, sy, sxx, sxy = sx+x, sy+ys[i], sxx+x*x, sxy+x*ys[i]
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / den
}

// tailSlope is the RSS slope in MB/min over the last window of samples.
func tailSlope(h []timedSample, window time.Duration) float64 {
	if len(h) == 0 {
		return 0
	}
	from := h[len(h)-1].t - window
	var ts []time.Duration
	var ys []float64
	for _, s := range h {
		if s.t >= from {
			ts, ys = append(ts, s.t), append(ys, s.RSSMB)
		}
	}
	return slopePerMin(ts, ys)
}

// analyze summarises a step's samples; nil when there are none.
func analyze(h []timedSample, window time.Duration, units int) *artifacts.TargetStats {
	if len(h) == 0 {
		return nil
	}
	first, last := h[0], h[len(h)-1]
	ts := make([]time.Duration, len(h))
	ys := make([]float64, len(h))
	out := &artifacts.TargetStats{
		RSSMB:   artifacts.Range{Start: round3(first.RSSMB), End: round3(last.RSSMB)},
		FDs:     artifacts.Range{Start: float64(first.FDs), End: float64(last.FDs)},
		Threads: artifacts.Range{Start: float64(first.Threads), End: float64(last.Threads)},
	}
	var cpu float64
	for i, s := range h {
		ts[i], ys[i] = s.t, s.RSSMB
		out.RSSMB.Peak = max(out.RSSMB.Peak, round3(s.RSSMB))
		out.FDs.Peak = max(out.FDs.Peak, float64(s.FDs))
		out.Threads.Peak = max(out.Threads.Peak, float64(s.Threads))
		cpu += s.CPUCores
	}
	out.CPUCores = round3(cpu / float64(len(h)))
	out.RSSSlopeMBPerMin = round3(slopePerMin(ts, ys))
	out.RSSTailSlopeMBMin = round3(tailSlope(h, window))
	if units > 0 {
		out.FDsPerUnit = round3((out.FDs.Peak - out.FDs.Start) / float64(units))
	}
	return out
}
