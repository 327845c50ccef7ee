//go:build linux

package evloop

import (
	"math"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// epollWait waits up to d for events (d < 0: until one comes). It blocks
// in the system call the ordinary way, handing its P back to the runtime.
// (A raw epoll_wait that kept the P while the loop had work cut the
// context switches sysmon causes, 0.32 to 0.09 per request, but delayed
// every other goroutine of the process: an in-process 20 ms server's p50
// rose to 26 ms with two Ps and 37 ms with one; docs/perf-http.md.)
func (l *Loop) epollWait(d time.Duration) (int, error) {
	return l.wait(uint64(d), unix.Syscall6)
}

// syscall6 is unix.Syscall6 or unix.RawSyscall6.
type syscall6 func(trap, a1, a2, a3, a4, a5, a6 uintptr) (r1, r2 uintptr, err unix.Errno)

// wait is one epoll wait of up to d nanoseconds (MaxUint64: no limit),
// through call: epoll_pwait2's nanosecond timeout (Linux 5.11), or
// epoll_pwait's milliseconds, rounded up, where the kernel lacks it. An
// interrupted wait returns no events.
func (l *Loop) wait(d uint64, call syscall6) (int, error) {
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
