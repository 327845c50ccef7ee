package watch

import (
	"os"
	"sync"
	"time"
)

// bytesPerMB is the MB of every figure in this package (MiB).
const bytesPerMB = 1 << 20

// Sample is one reading of a process's (or cgroup's) resources.
type Sample struct {
	// RSSBytes is resident memory (for a cgroup, its memory usage).
	RSSBytes int64
	// FDs is the count of open file descriptors, -1 when not readable
	// (another user's process).
	FDs int
	// Threads is the count of threads.
	Threads int
	// CPUSeconds is the cumulative user+system CPU time.
	CPUSeconds float64
	// CPUCores is the CPU used since the Sampler's previous reading, in
	// cores (CPU seconds per wall second); 0 on a first reading and from
	// SampleProc.
	CPUCores float64

	// PSSBytes and USSBytes are the proportional and unique (private clean
	// + private dirty) set sizes from /proc/PID/smaps_rollup, read only by
	// a PSS tree sampler; -1 when a process's smaps_rollup is not ours to
	// read, 0 when not read.
	PSSBytes, USSBytes int64

	// The figures of a cgroup target, 0 for a process: WorkingSetBytes is
	// the kubelet's working set (usage - inactive_file), MemPeakBytes the
	// kernel's peak (memory.peak, memory.max_usage_in_bytes), and the rest
	// cumulative counters since the cgroup was made: periods throttled
	// (nr_throttled), time throttled, and OOM kills.
	WorkingSetBytes  int64
	MemPeakBytes     int64
	ThrottledPeriods int64
	ThrottledSeconds float64
	OOMKills         int64
}

// RSSMB is RSSBytes in MB (MiB).
func (s Sample) RSSMB() float64 { return float64(s.RSSBytes) / bytesPerMB }

// Sampler reads one process (or cgroup) repeatedly and turns the growth of
// its CPU time into cores used between readings. It is safe for concurrent
// use, though one owner that samples on a ticker is the intended use.
type Sampler struct {
	read func() (Sample, error)
	now  func() time.Time // a seam for tests

	mu     sync.Mutex
	prev   Sample
	prevAt time.Time
	primed bool
}

// NewSampler returns a Sampler of process pid.
func NewSampler(pid int) *Sampler {
	return newSampler(func() (Sample, error) { return SampleProc(pid) })
}

// SelfSampler returns a Sampler of benchtui's own process, so a leak in the
// load generator is never mistaken for one in the target.
func SelfSampler() *Sampler { return NewSampler(os.Getpid()) }

func newSampler(read func() (Sample, error)) *Sampler {
	return &Sampler{read: read, now: time.Now}
}

// Sample reads the process and sets CPUCores from the previous reading.
func (s *Sampler) Sample() (Sample, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := s.read()
	if err != nil {
		return Sample{}, err
	}
	at := s.now()
	if s.primed {
		if wall := at.Sub(s.prevAt).Seconds(); wall > 0 {
			cur.CPUCores = max(0, cur.CPUSeconds-s.prev.CPUSeconds) / wall
		}
	}
	s.prev, s.prevAt, s.primed = cur, at, true
	return cur, nil
}
