package sse

import (
	"os"
	"runtime/debug"
	"sync"
)

// While a step holds at least heldGCFrom streams, the collector runs at
// heldGCPercent (GOGC) unless the GOGC variable says otherwise. A held
// stream's memory (its goroutine's 4 KB stack, its connection and
// buffers) lives as long as the stream, and holding it makes next to no
// garbage (0 allocations per event read); the default target, GOGC 100,
// lets the heap grow by as much again as the live heap and the stacks
// before collecting, which at 15,000 subscribers was 100 MB of RSS, 7 KB a
// subscriber, paid for a few KB of garbage a second.
const (
	heldGCFrom    = 10_000
	heldGCPercent = 25
)

var lowGC struct {
	sync.Mutex
	holders int
	before  int // the GC percent before the first holder
}

// holdLowGC sets the collector to heldGCPercent for a step of n streams
// (from heldGCFrom, GOGC unset) and returns what restores it: the last of
// concurrent holders (several sse loads of one step) restores the percent
// the first found.
func holdLowGC(n int) (release func()) {
	if n < heldGCFrom || os.Getenv("GOGC") != "" {
		return func() {}
	}
	lowGC.Lock()
	if lowGC.holders == 0 {
		lowGC.before = debug.SetGCPercent(heldGCPercent)
	}
	lowGC.holders++
	lowGC.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			lowGC.Lock()
			defer lowGC.Unlock()
			if lowGC.holders--; lowGC.holders == 0 {
				debug.SetGCPercent(lowGC.before)
			}
		})
	}
}
