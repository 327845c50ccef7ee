package runnertest

import (
	"maps"
	"slices"
	"sync"
	"time"
)

// Recorder keeps the extra timings and counters that a runner's workers
// report (the Extra and Count of runners.Recorder) for a test to read
// back. It is safe for concurrent use; the zero value is ready.
type Recorder struct {
	mu     sync.Mutex
	extras map[string][]time.Duration
	counts map[string]int64
}

// Extra keeps d under name.
func (r *Recorder) Extra(name string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.extras == nil {
		r.extras = map[string][]time.Duration{}
	}
	r.extras[name] = append(r.extras[name], d)
}

// Count adds n to the counter name.
func (r *Recorder) Count(name string, n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counts == nil {
		r.counts = map[string]int64{}
	}
	r.counts[name] += n
}

// Extras returns a copy of the timings kept so far, by name.
func (r *Recorder) Extras() map[string][]time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string][]time.Duration, len(r.extras))
	for k, v := range r.extras {
		out[k] = slices.Clone(v)
	}
	return out
}

// Counters returns a copy of the counters so far.
func (r *Recorder) Counters() map[string]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int64, len(r.counts))
	maps.Copy(out, r.counts)
	return out
}
