//go:build linux

package httpload

import (
	"io"
	"net"
	"syscall"
)

// wire is a lean connection's reads and writes. On Linux a request is
// written by the first read that follows it, inside the poller's read
// callback: the poller's readiness is reset before the write, so the read
// can wait for the reply without first trying a read that finds nothing
// (the EAGAIN read a plain Write then Read costs per request).
type wire struct {
	conn    net.Conn
	raw     syscall.RawConn // nil: plain Write and Read
	pending []byte          // a request the next Read writes first
	// onReady is the poller's callback (made once: a closure per Read
	// would allocate); p, n and err are its read's buffer and result.
	onReady func(fd uintptr) bool
	p       []byte
	n       int
	err     error
}

func newWire(conn net.Conn) *wire {
	w := &wire{conn: conn}
	if sc, ok := conn.(syscall.Conn); ok {
		w.raw, _ = sc.SyscallConn()
	}
	w.onReady = w.ready
	return w
}

// send queues b for the next Read, or writes it now without a raw
// connection.
func (w *wire) send(b []byte) error {
	if w.raw == nil {
		_, err := w.conn.Write(b)
		return err
	}
	w.pending = b
	return nil
}

// Read reads the connection, writing a queued request first.
func (w *wire) Read(p []byte) (int, error) {
	if w.pending == nil {
		return w.conn.Read(p)
	}
	w.p, w.n, w.err = p, 0, nil
	werr := w.raw.Read(w.onReady)
	n, err := w.n, w.err
	w.p, w.err = nil, nil
	switch {
	case werr != nil:
		w.pending = nil
		return 0, werr // a deadline, or the connection closed
	case err != nil:
		w.pending = nil
		return 0, err
	case w.pending != nil: // the socket's buffer was full: the rest the plain way
		rest := w.pending
		w.pending = nil
		if _, err := w.conn.Write(rest); err != nil {
			return 0, err
		}
		return w.conn.Read(p)
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

// ready is the poller's callback: it writes the queued request, then
// reads once the reply has come; it reports whether it is done.
func (w *wire) ready(fd uintptr) bool {
	if w.pending != nil {
		w.err = w.writeQueued(int(fd))
		return w.err != nil || w.pending != nil // wait for the reply once written
	}
	w.n, w.err = readFD(int(fd), w.p)
	return w.err != syscall.EAGAIN
}

// writeQueued writes what the socket takes of the queued request; what it
// did not take stays queued.
func (w *wire) writeQueued(fd int) error {
	for {
		k, err := syscall.Write(fd, w.pending)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return nil
		case err != nil:
			return err
		}
		if w.pending = w.pending[k:]; len(w.pending) == 0 {
			w.pending = nil
		}
		return nil
	}
}

// readFD reads fd, retrying an interrupted read.
func readFD(fd int, p []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, p)
		if err != syscall.EINTR {
			return max(n, 0), err
		}
	}
}
