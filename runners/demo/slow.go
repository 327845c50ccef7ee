package demo

import (
	"sync/atomic"
	"time"
)

// MaxSlowPath bounds Options.SlowPath.
const MaxSlowPath = time.Second

// slowSink keeps slowPath's results, so its work is never dead code.
var slowSink atomic.Uint64

// slowPath burns d of CPU in a loop of its own, so that a CPU profile
// puts the time in this function (demo.slowPath): the deliberate
// regression of `demo-target --slow-path`, for "what got slower" to find.
//
//go:noinline
func slowPath(d time.Duration) uint64 {
	deadline := time.Now().Add(d)
	x := uint64(1)
	for {
		for range 4096 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		if !time.Now().Before(deadline) {
			return x
		}
	}
}
