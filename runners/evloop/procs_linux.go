//go:build linux

package evloop

import (
	"runtime"
	"sync"
)

// procs counts the Drives running, each of which has added a P to the
// process's GOMAXPROCS (base when the first began).
var procs struct {
	sync.Mutex
	drives, base int
}

// reserveP adds a P to GOMAXPROCS until release, and returns the
// GOMAXPROCS before any Drive added to it: the number of loops to run.
// The last release sets GOMAXPROCS back to that value (which, set so,
// no longer follows a change of the container's CPU limit).
//
// A loop blocks in epoll_wait holding its P in a system call. With every
// P so held, Go's sysmon takes each P back from its blocked loop (after
// 20 µs) and hands it to another thread, and stays awake at its shortest
// period to do so: a nanosleep, a futex wake-up and a context switch or
// more per wake-up of the loop. With one P more than there are loops,
// idle, sysmon leaves a P in a system call alone (runtime.retake), the
// loop returns to its own P, and the rest of the process (engine,
// console, collector) keeps a P of its own. Measured in
// docs/perf-http.md.
func reserveP() (loops int, release func()) {
	procs.Lock()
	defer procs.Unlock()
	if procs.drives == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	procs.drives++
	runtime.GOMAXPROCS(procs.base + procs.drives)
	return procs.base, func() {
		procs.Lock()
		defer procs.Unlock()
		procs.drives--
		runtime.GOMAXPROCS(procs.base + procs.drives)
	}
}
