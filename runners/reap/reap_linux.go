package reap

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ids are a process's pid, process group and session.
type ids struct{ pid, pgid, sid int }

// self is this process's ids, read by Init.
var self ids

// orphanScanGap is the least time between two scans for exited orphans:
// SIGCHLD may come thousands of times a second (the spawn runner).
const orphanScanGap = time.Second

// initOS makes this process a child subreaper and starts reaping the
// orphans it adopts.
func initOS() error {
	self.pid, self.pgid = os.Getpid(), syscall.Getpgrp()
	sid, err := unix.Getsid(0)
	if err != nil {
		return fmt.Errorf("reading the session id: %w", err)
	}
	self.sid = sid
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("becoming a child subreaper: %w", err)
	}
	sigchld := make(chan os.Signal, 1)
	signal.Notify(sigchld, syscall.SIGCHLD)
	go reapOrphans(sigchld)
	return nil
}

// reapOrphans reaps the adopted orphans that exited, after each SIGCHLD,
// at most once per orphanScanGap. It runs for the process's life.
func reapOrphans(sigchld <-chan os.Signal) {
	for range sigchld {
		reapExitedOrphans()
		time.Sleep(orphanScanGap)
	}
}

// reapExitedOrphans reaps the children that exited and that benchtui did
// not start itself: those are waited for by whoever started them (os/exec,
// the spawn runner), and reaping one here would steal its status.
func reapExitedOrphans() {
	for _, pid := range childPIDs() {
		if p, ok := readStat(pid); ok && p.state == 'Z' && self.adopted(p) {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
	}
}

// adopted reports whether child p came to benchtui (me) as an orphan
// rather than from one of its own starts. Every process benchtui starts
// leads a new group in its session (reap.OwnGroup; a group leader cannot
// leave its session) or stays in benchtui's group, so a child in another
// session, or in a group that is neither benchtui's nor its own, was
// adopted.
func (me ids) adopted(p procStat) bool {
	return p.sid != me.sid || (p.pgid != p.pid && p.pgid != me.pgid)
}
