//go:build linux

package httpload

import (
	"math"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A loop with work waits for its events without giving up its P: a
// blocking system call that holds one makes sysmon take the P back and
// keep waking (every 20 µs while it finds such calls), and each of its
// wake-ups is a context switch on the generator's core; a raw epoll_wait
// is invisible to it. Such a wait is short (rawWait at the most, and the
// loop yields to the other goroutines every yieldEvery), and only while
// events came within idleAfter; an idle loop blocks the ordinary way.
const (
	rawWait    = time.Millisecond
	idleAfter  = 10 * time.Millisecond
	yieldEvery = time.Millisecond
)

// epollWait waits up to d for events (d < 0: until one comes).
func (l *evLoop) epollWait(d time.Duration, now time.Time) (int, error) {
	if now.Sub(l.yielded) >= yieldEvery {
		runtime.Gosched() // the engine's goroutines, on one P
		l.yielded = now
	}
	if d >= 0 && d <= rawWait || now.Sub(l.lastEvents) < idleAfter {
		n, err := l.wait(min(uint64(d), uint64(rawWait)), unix.RawSyscall6)
		if n > 0 {
			l.lastEvents = now
		}
		return n, err
	}
	n, err := l.wait(uint64(d), unix.Syscall6)
	if n > 0 {
		l.lastEvents = time.Now()
	}
	return n, err
}

// syscall6 is unix.Syscall6 or unix.RawSyscall6.
type syscall6 func(trap, a1, a2, a3, a4, a5, a6 uintptr) (r1, r2 uintptr, err unix.Errno)

// wait is one epoll wait of up to d nanoseconds (MaxUint64: no limit),
// through call: epoll_pwait2's nanosecond timeout (Linux 5.11), or
// epoll_pwait's milliseconds, rounded up, where the kernel lacks it. An
// interrupted wait returns no events.
func (l *evLoop) wait(d uint64, call syscall6) (int, error) {
	events := uintptr(unsafe.Pointer(&l.events[0]))
	var n uintptr
	errno := unix.ENOSYS
	if !l.noPwait2 {
		ts, tsp := unix.NsecToTimespec(int64(min(d, math.MaxInt64))), uintptr(0)
		if d != math.MaxUint64 {
			tsp = uintptr(unsafe.Pointer(&ts))
		}
		n, _, errno = call(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd), events, uintptr(len(l.events)), tsp, 0, 0)
		l.noPwait2 = errno == unix.ENOSYS
	}
	if errno == unix.ENOSYS {
		n, _, errno = call(unix.SYS_EPOLL_PWAIT, uintptr(l.epfd), events, uintptr(len(l.events)), uintptr(waitMS(d)), 0, 0)
	}
	switch errno {
	case 0:
		return int(n), nil
	case unix.EINTR:
		return 0, nil
	}
	return 0, errno
}

// waitMS is d nanoseconds in epoll_wait's milliseconds, rounded up (-1:
// no limit).
func waitMS(d uint64) int {
	if d == math.MaxUint64 {
		return -1
	}
	return int(min((d+uint64(time.Millisecond)-1)/uint64(time.Millisecond), math.MaxInt32))
}
