package runners

import (
	"time"

	"github.com/benchtui/benchtui/runners/plan"
)

// Shard says which part of a distributed run this process runs: shard
// Index of Count, all starting their load at StartAt. The zero Shard is a
// run on one machine.
//
// Work is striped, never sliced: open-loop arrival j goes to shard
// j mod Count, and worker (or subscriber) k of shard i has the global id
// i + k·Count, so the shards together keep exactly the schedule and the
// ids of one machine.
type Shard struct {
	Index, Count int
	StartAt      time.Time
	RunID        string
	// ReadyFile, when set, is written once the shard is prepared and
	// waits for its start (a pod's readiness probe tests it).
	ReadyFile string
	// Tolerance is how late past a start time the shard may be ready
	// before it gives up; zero means the engine's default
	// (engine.ShardTolerance).
	Tolerance time.Duration
}

// Active reports whether the run is split over several processes.
func (s Shard) Active() bool { return s.Count > 0 }

// stride is the distance between two of this shard's global indexes.
func (s Shard) stride() int64 { return int64(max(s.Count, 1)) }

// Split is how many of n units (workers, subscribers, iterations) this
// shard takes: the global indexes below n congruent to Index mod Count,
// so the shards' shares differ by at most one and add up to n.
func (s Shard) Split(n int64) int64 {
	switch {
	case !s.Active():
		return n
	case n <= int64(s.Index):
		return 0
	}
	return (n - int64(s.Index) + s.stride() - 1) / s.stride()
}

// SplitLoad is load as this shard runs it: its workers (concurrency,
// max_in_flight) split between the shards; an open loop's rate is striped
// by its schedule (StepEnv.Shard), not here. The zero Shard returns load.
func (s Shard) SplitLoad(load plan.Load) plan.Load {
	if !s.Active() {
		return load
	}
	load.Concurrency = int(s.Split(int64(load.Concurrency)))
	load.MaxInFlight = int(s.Split(int64(load.MaxInFlight)))
	return load
}

// Global is the global index of this shard's k-th unit: its worker id, or
// its open-loop arrival.
func (s Shard) Global(k int64) int64 {
	if !s.Active() {
		return k
	}
	return int64(s.Index) + k*s.stride()
}

// LocalBefore is how many of this shard's units have a global index at
// most g: the open loop's count of its arrivals due by a time.
func (s Shard) LocalBefore(g int64) int64 {
	if !s.Active() {
		return max(g+1, 0)
	}
	if g < int64(s.Index) {
		return 0
	}
	return (g-int64(s.Index))/s.stride() + 1
}
