//go:build linux

package evloop

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Read is read(2) on a non-blocking socket, and Write write(2): neither
// can block, so both skip the runtime's bookkeeping for a system call
// that might (entersyscall and exitsyscall, a P hand-off sysmon may
// start), a few hundred nanoseconds of a request's user time.
func Read(fd int, p []byte) (int, error) { return rawIO(unix.SYS_READ, fd, p) }

// Write is write(2) on a non-blocking socket; see Read.
func Write(fd int, p []byte) (int, error) { return rawIO(unix.SYS_WRITE, fd, p) }

func rawIO(trap uintptr, fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, errno := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// Flush writes buf[off:] to the non-blocking socket fd until all of it
// is written or the socket's buffer is full (its EPOLLOUT edge brings the
// rest), and returns how far it got; an error is the write's, never
// EAGAIN.
func Flush(fd int, buf []byte, off int) (int, error) {
	for off < len(buf) {
		n, err := Write(fd, buf[off:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return off, nil
		case err != nil:
			return off, err
		}
		off += n
	}
	return off, nil
}
