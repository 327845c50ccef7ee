//go:build linux

package evloop

import (
	"time"

	"golang.org/x/sys/unix"
)

// Socket is one connection's socket in a loop: the protocol's connection
// embeds it, and its events carry Index and Gen (Attach).
type Socket struct {
	Index int32 // the connection's number in its loop: its events' data
	Gen   int32 // counts its sockets, so that a closed one's events are ignored
	FD    int   // -1: none
	Out   Outbox
}

// Close closes the socket, which leaves its loop's epoll with it, and
// drops what was queued on it.
func (s *Socket) Close() {
	if s.FD >= 0 {
		unix.Close(s.FD)
		s.FD = -1
	}
	s.Out.Reset()
}

// Current reports whether ev is of s's open socket, not of one closed
// since (its generation).
func (s *Socket) Current(ev unix.EpollEvent) bool { return s.FD >= 0 && ev.Pad == s.Gen }

// Attach makes fd s's socket, a new generation of it, registered with the
// loop; on an error fd is left to the caller, and s has no socket.
func (l *Loop) Attach(s *Socket, fd int) error {
	s.Gen++
	if err := l.Register(fd, s.Index, s.Gen); err != nil {
		return err
	}
	s.FD = fd
	return nil
}

// Conn is a protocol's connection as the loop's socket code sees it: its
// reply reader's buffer, its framing and its failures. The protocol
// passes a pointer to its connection (no allocation per call).
type Conn interface {
	// Reading reports whether the socket is to be read (more to read).
	Reading() bool
	// Space is the buffer the next read fills.
	Space() []byte
	// Frame takes the n bytes the last read put at the start of Space;
	// it reports false when the connection failed.
	Frame(n int, now time.Time) bool
	// EOF: the peer closed the connection.
	EOF(now time.Time)
	// Fail closes the connection and ends its requests out with err.
	Fail(err error, now time.Time)
}

// Flush writes what the socket takes of s's queue; it reports false when
// the write failed (c failed with its error).
func (l *Loop) Flush(s *Socket, c Conn, now time.Time) bool {
	if err := s.Out.Flush(s.FD); err != nil {
		c.Fail(err, now)
		return false
	}
	return true
}

// Ready handles a readiness event of s's current socket: it writes what
// is queued, then reads when the socket is readable (or closed).
func (l *Loop) Ready(s *Socket, c Conn, ev unix.EpollEvent, now time.Time) {
	if s.Out.Pending() && !l.Flush(s, c, now) {
		return
	}
	if ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		l.readSocket(s, c, ev.Events&closedEvents, now)
	}
}

// closedEvents are the events of a socket the peer closed (or that
// failed): its reads go on past a short one, to its end or error, which
// no later edge would bring.
const closedEvents = unix.EPOLLRDHUP | unix.EPOLLHUP | unix.EPOLLERR

// readSocket reads s's socket while c is reading, until it has nothing
// more, or, when closed (its events of a close) has any, to its end or
// error; after MaxReads it hands the socket back to the loop for its next
// pass (readAgain). c frames what each read brought.
func (l *Loop) readSocket(s *Socket, c Conn, closed uint32, now time.Time) {
	for reads := 0; c.Reading(); reads++ {
		if reads == MaxReads {
			l.readAgain(s, closed)
			return
		}
		space := c.Space()
		n, err := Read(s.FD, space)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return
		case err != nil:
			c.Fail(err, now)
			return
		case n == 0:
			c.EOF(now)
			return
		}
		if !c.Frame(n, now) || n < len(space) && closed == 0 {
			return // failed, or drained: the next bytes bring an edge
		}
	}
}

// Expiring is a connection whose oldest request out may pass its
// deadline.
type Expiring interface {
	// Oldest is the deadline of the oldest request out (zero: none), and
	// whether one is out.
	Oldest() (deadline time.Time, out bool)
	// Expire fails the requests out: the oldest is past its deadline, or,
	// with all, the grace for them ended.
	Expire(now time.Time, all bool)
}

// Expire expires each of conns with a request out past its deadline, or
// every one with a request out when all is set.
func Expire[C Expiring](conns []C, now time.Time, all bool) {
	for _, c := range conns {
		deadline, out := c.Oldest()
		if out && (all || !deadline.IsZero() && now.After(deadline)) {
			c.Expire(now, all)
		}
	}
}
