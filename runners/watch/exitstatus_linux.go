package watch

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// StatusUnknown ends the exit status of an attached process whose status
// the kernel no longer shows: only a parent can wait for a process, and
// benchtui is not the parent of a process it attached to.
const StatusUnknown = "exited, status unknown (attached: not benchtui's child)"

// attachedExitStatus is how an attached process ended. While it is a
// zombie (its parent has not reaped it yet) /proc/PID/stat still holds
// its wait status (field 52, exit_code, Linux 3.5+); once reaped, nothing
// does, and the status is StatusUnknown.
func attachedExitStatus(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return StatusUnknown
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return StatusUnknown
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3, state; f[49] is field 52
	if len(f) < 50 || f[0][0] != 'Z' {
		return StatusUnknown
	}
	code, err := strconv.Atoi(string(f[49]))
	if err != nil {
		return StatusUnknown
	}
	ws := syscall.WaitStatus(code)
	if ws.Signaled() {
		return fmt.Sprintf("signal %s (attached; read from /proc while a zombie)", ws.Signal())
	}
	return fmt.Sprintf("exit %d (attached; read from /proc while a zombie)", ws.ExitStatus())
}

// pidfdWatch tells of an attached process's exit as soon as the kernel
// knows it, through a pidfd (Linux 5.3+), so that its status can be read
// before its parent reaps it. It returns a channel closed at the exit and
// a stop function that releases the pidfd; a nil channel where no pidfd
// can be opened (an older kernel, a seccomp filter), and then the periodic
// check alone sees the exit.
func pidfdWatch(pid int, quit <-chan struct{}) (<-chan struct{}, func()) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, func() {}
	}
	exited := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			select {
			case <-quit:
				return
			default:
			}
			// A short timeout, so that Stop is never kept waiting long.
			n, err := unix.Poll(fds, 100)
			if err != nil && err != unix.EINTR {
				return
			}
			if n > 0 {
				close(exited)
				return
			}
		}
	})
	return exited, func() {
		wg.Wait()
		unix.Close(fd)
	}
}
