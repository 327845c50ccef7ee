package reap

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sweepPoll is how often a sweep looks again for what is left.
const sweepPoll = 20 * time.Millisecond

// sweepOS ends the marked processes and the children, the reaper aside:
// SIGTERM, then SIGKILL to what is left after grace.
func sweepOS(grace time.Duration) error {
	if endAll(syscall.SIGTERM, grace, true) {
		return nil
	}
	if endAll(syscall.SIGKILL, grace, true) {
		return nil
	}
	return fmt.Errorf("processes still running %s after SIGKILL: %v", grace, strays(true))
}

// endAll sends sig to every stray (once each; new ones as they appear)
// and waits up to d until none is left; it reports whether none is.
func endAll(sig syscall.Signal, d time.Duration, children bool) bool {
	deadline := time.Now().Add(d)
	sent := map[int]bool{}
	for {
		left := strays(children)
		if len(left) == 0 {
			return true
		}
		for _, pid := range left {
			if !sent[pid] {
				sent[pid] = true
				_ = signalStray(pid, sig, children)
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(sweepPoll)
	}
}

// strays are the running processes this benchtui must end: those that
// carry its marker and, with children, its own children; never itself nor
// its reaper.
func strays(children bool) []int {
	pids, _ := allPIDs()
	var out []int
	seen := map[int]bool{}
	for _, pid := range pids {
		if pid != self.pid && pid != reaperPID && Matches(markerOf(pid)) {
			seen[pid] = true
			out = append(out, pid)
		}
	}
	if children {
		for _, pid := range childPIDs() {
			if !seen[pid] && pid != reaperPID {
				out = append(out, pid)
			}
		}
	}
	return running(out)
}

// running keeps the pids of pids that have not exited.
func running(pids []int) []int {
	out := pids[:0]
	for _, pid := range pids {
		if p, ok := readStat(pid); ok && !p.gone() {
			out = append(out, pid)
		}
	}
	return out
}

// signalStray sends sig to pid through a pidfd, after checking again,
// with the pid held, that it is still a stray: a pid that ended between
// the scan and now may name another process. A kernel without pidfds
// (before 5.3) gets a plain kill.
func signalStray(pid int, sig syscall.Signal, children bool) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ENOSYS) {
		return syscall.Kill(pid, sig)
	}
	if err != nil {
		return fmt.Errorf("opening pid %d: %w", pid, err)
	}
	defer unix.Close(fd)
	p, ok := readStat(pid)
	if !ok || !(Matches(markerOf(pid)) || (children && p.ppid == self.pid)) {
		return nil
	}
	if err := unix.PidfdSendSignal(fd, sig, nil, 0); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("sending %v to pid %d: %w", sig, pid, err)
	}
	return nil
}
