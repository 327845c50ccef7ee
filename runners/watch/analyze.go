package watch

import (
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// TimedSample is a Sample taken T after the step's clock started.
type TimedSample struct {
	T time.Duration
	Sample
}

// Slope is the least-squares slope of ys over ts (ts in seconds), in y
// units per second; 0 with fewer than two distinct times.
func Slope(ts, ys []float64) float64 { return LineFit(ts, ys).Slope }

// RSSSlopeMBPerMin is the least-squares slope of the samples' RSS in MB
// per minute.
func RSSSlopeMBPerMin(samples []TimedSample) float64 {
	return fitOf(samples, rssMB).Slope * 60
}

// TailSlopeMBPerMin is the RSS slope in MB/min over the samples of the last
// window (all of them when window <= 0).
func TailSlopeMBPerMin(samples []TimedSample, window time.Duration) float64 {
	return RSSSlopeMBPerMin(tail(samples, window))
}

// tail returns the samples taken within window of the last one.
func tail(samples []TimedSample, window time.Duration) []TimedSample {
	if len(samples) == 0 || window <= 0 {
		return samples
	}
	from := samples[len(samples)-1].T - window
	i := len(samples)
	for i > 0 && samples[i-1].T >= from {
		i--
	}
	return samples[i:]
}

// since returns the samples taken at or after t.
func since(samples []TimedSample, t time.Duration) []TimedSample {
	for i, s := range samples {
		if s.T >= t {
			return samples[i:]
		}
	}
	return nil
}

// Analyze summarises a step's samples (in time order). RSS, fds and threads
// ranges and mean CPU cover the whole step; the RSS slope covers the
// samples from warmupEnd on, and the tail slope the last tailWindow of
// those, since memory that grows while a server warms up is no leak.
// FDsPerUnit is the fd growth (peak - start) per unit of load (subscriber,
// connection) when units > 0.
func Analyze(samples []TimedSample, warmupEnd, tailWindow time.Duration, units int) artifacts.TargetStats {
	var st artifacts.TargetStats
	if len(samples) == 0 {
		return st
	}
	first, last := samples[0], samples[len(samples)-1]
	st.RSSMB = artifacts.Range{Start: first.RSSMB(), Peak: first.RSSMB(), End: last.RSSMB()}
	st.Threads = artifacts.Range{Start: float64(first.Threads), Peak: float64(first.Threads), End: float64(last.Threads)}
	fdSeen := false
	for _, s := range samples {
		st.RSSMB.Peak = max(st.RSSMB.Peak, s.RSSMB())
		st.Threads.Peak = max(st.Threads.Peak, float64(s.Threads))
		st.CPUCoresPeak = max(st.CPUCoresPeak, s.CPUCores)
		if s.FDs < 0 {
			continue // unreadable
		}
		if !fdSeen {
			st.FDs.Start, st.FDs.Peak, fdSeen = float64(s.FDs), float64(s.FDs), true
		}
		st.FDs.Peak = max(st.FDs.Peak, float64(s.FDs))
		st.FDs.End = float64(s.FDs)
	}
	st.FDsPerUnit = fdsPerUnit(st.FDs, units)
	if wall := (last.T - first.T).Seconds(); wall > 0 {
		st.CPUCores = max(0, last.CPUSeconds-first.CPUSeconds) / wall
	}
	addTrends(&st, samples, since(samples, warmupEnd), tailWindow)
	addMemoryKinds(&st, samples)
	return st
}

// fdsPerUnit is the fd growth of r per unit, 0 without units.
func fdsPerUnit(r artifacts.Range, units int) float64 {
	if units <= 0 {
		return 0
	}
	return (r.Peak - r.Start) / float64(units)
}
