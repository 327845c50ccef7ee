//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// stdoutWasClosed reports whether descriptor 1 was closed when the process
// started: Go's runtime then opens /dev/null read-write in its place (a
// shell's `>/dev/null` opens it write-only). When stderr is such a
// /dev/null too, the process was detached on purpose (daemon(3) does
// that), and its stdout counts as discarded, not lost.
func stdoutWasClosed() bool {
	return reopenedNull(1) && !reopenedNull(2)
}

// reopenedNull reports whether fd is /dev/null opened read-write.
func reopenedNull(fd int) bool {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil || flags&unix.O_ACCMODE != unix.O_RDWR {
		return false
	}
	var st, null unix.Stat_t
	if unix.Fstat(fd, &st) != nil || unix.Stat(os.DevNull, &null) != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == null.Rdev
}
