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

// Outbox is what one connection has queued to write: the protocol
// appends to Buf, Flush writes what the socket takes.
type Outbox struct {
	Buf []byte // queued; Buf[:off] is written
	off int
}

// Pending reports whether queued bytes are not written yet.
func (o *Outbox) Pending() bool { return o.off < len(o.Buf) }

// Reset drops what is queued (the connection is closed).
func (o *Outbox) Reset() { o.Buf, o.off = o.Buf[:0], 0 }

// Flush writes to the non-blocking socket fd until all that is queued is
// written (the outbox is empty again) or the socket's buffer is full (its
// EPOLLOUT edge brings the rest); an error is the write's, never EAGAIN.
func (o *Outbox) Flush(fd int) error {
	for o.off < len(o.Buf) {
		n, err := Write(fd, o.Buf[o.off:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return nil
		case err != nil:
			return err
		}
		o.off += n
	}
	o.Reset()
	return nil
}
