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

// strayFilter says what a sweep ends besides the processes that carry the
// marker: with children, this process's children too; never skip (the
// reaper, 0 for none) nor this process.
type strayFilter struct {
	children bool
	skip     int
}

// sweepOS ends the marked processes and the children, the reaper aside:
// SIGTERM, then SIGKILL to what is left after grace.
func sweepOS(grace time.Duration, reaperPID int) error {
	f := strayFilter{children: true, skip: reaperPID}
	if endAll(syscall.SIGTERM, grace, f) || endAll(syscall.SIGKILL, grace, f) {
		return nil
	}
	return fmt.Errorf("processes still running %s after SIGKILL: %v", grace, f.strays())
}

// endAll sends sig to every stray (once each; new ones as they appear)
// and waits up to d until none is left; it reports whether none is.
func endAll(sig syscall.Signal, d time.Duration, f strayFilter) bool {
	deadline := time.Now().Add(d)
	sent := map[int]bool{}
	for {
		left := f.strays()
		if len(left) == 0 {
			return true
		}
		for _, pid := range left {
			if !sent[pid] {
				sent[pid] = true
				_ = f.signal(pid, sig)
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(sweepPoll)
	}
}

// strays are the running processes f ends.
func (f strayFilter) strays() []int {
	pids, _ := allPIDs()
	var out []int
	seen := map[int]bool{}
	for _, pid := range pids {
		if pid != self.pid && pid != f.skip && Matches(markerOf(pid)) {
			seen[pid] = true
			out = append(out, pid)
		}
	}
	if f.children {
		for _, pid := range childPIDs() {
			if !seen[pid] && pid != f.skip {
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

// signal sends sig to pid through a pidfd, after checking again, with the
// pid held, that f still takes it: a pid that ended between the scan and
// now may name another process. A kernel without pidfds (before 5.3) gets
// a plain kill.
func (f strayFilter) signal(pid int, sig syscall.Signal) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ENOSYS) {
		return syscall.Kill(pid, sig)
	}
	if err != nil {
		return fmt.Errorf("opening pid %d: %w", pid, err)
	}
	defer unix.Close(fd)
	p, ok := readStat(pid)
	if !ok || !(Matches(markerOf(pid)) || (f.children && p.ppid == self.pid)) {
		return nil
	}
	if err := unix.PidfdSendSignal(fd, sig, nil, 0); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("sending %v to pid %d: %w", sig, pid, err)
	}
	return nil
}
