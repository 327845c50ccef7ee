//go:build linux

package httpload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"golang.org/x/sys/unix"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/evloop"
)

// evConn is one worker's connection in a loop.
type evConn struct {
	index int32 // in its loop's conns: the epoll events' data
	gen   int32 // counts its sockets, so that a closed one's events are ignored
	fd    int   // -1: not connected
	addr  string
	rec   *runners.Recorder
	rnd   *rand.Rand
	reply *replyReader
	// out are the requests sent and not yet answered, oldest first: one,
	// or up to http.pipeline, whose replies come in the order sent.
	out []sent
	// queue is what is queued and not yet written.
	queue      evloop.Outbox
	connecting bool
	// reused says the request out went on a connection made before it;
	// retried that it was sent again after finding it closed.
	reused, retried bool
}

// sent is one request out on a connection.
type sent struct {
	req                 int // index in the runner's requests
	due, sent, deadline time.Time
}

// startAt puts connection c's next request of the mix, due at due, on
// the wire: it is queued and written with whatever else c has queued when
// the loop's pass ends (Write), so that a pipelined connection's
// requests go in one write.
func (l *evLoop) startAt(c *evConn, due, now time.Time) {
	s := sent{req: l.r.mix[c.rnd.IntN(len(l.r.mix))], due: due, sent: now, deadline: now.Add(l.r.timeout())}
	if len(c.out) == 0 {
		c.retried = false
	}
	c.out = append(c.out, s)
	l.send(c, now, &l.r.lean[s.req])
}

// send queues lr on c, dialling first when c has no connection to its
// address (a pipelined mix has one address: epollProblems).
func (l *evLoop) send(c *evConn, now time.Time, lr *leanRequest) {
	if c.fd >= 0 && c.addr != lr.addr {
		c.closeFD()
	}
	if c.fd < 0 {
		c.reused = false
		if err := l.dial(c, lr.addr); err != nil {
			l.fail(c, now, err)
			return
		}
	} else if len(c.out) == 1 {
		c.reused = true
	}
	c.queue.Buf = append(c.queue.Buf, lr.wire...)
	l.MarkDirty(int(c.index))
}

// dial opens a non-blocking socket to addr and registers it, edge
// triggered for reads and writes (a write's edge comes only after one
// found the socket's buffer full, so no per-request epoll_ctl).
func (l *evLoop) dial(c *evConn, addr string) error {
	t := l.targets[addr]
	if t.err != nil {
		return t.err
	}
	fd, err := unix.Socket(t.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1) // as Go's dialer does
	err = unix.Connect(fd, t.sa)
	if err != nil && err != unix.EINPROGRESS {
		unix.Close(fd)
		return err
	}
	c.gen++
	if err := l.Register(fd, c.index, c.gen); err != nil {
		unix.Close(fd)
		return err
	}
	c.fd, c.addr, c.connecting = fd, addr, err != nil
	c.reply.Reset()
	return nil
}

// Write writes what connection conn has queued, once it is connected.
func (l *evLoop) Write(conn int, now time.Time) {
	if c := l.conns[conn]; c.fd >= 0 && !c.connecting {
		l.flush(c, now)
	}
}

// flush writes what the socket takes of c's queue; it reports false when
// c's requests failed.
func (l *evLoop) flush(c *evConn, now time.Time) bool {
	if err := c.queue.Flush(c.fd); err != nil {
		l.fail(c, now, err)
		return false
	}
	return true
}

// read reads c's socket until it has nothing more (or, after MaxReads, hands
// it back to the loop for its next pass), framing replies.
func (l *evLoop) read(c *evConn, now time.Time) {
	for reads := 0; len(c.out) > 0; reads++ {
		if reads == evloop.MaxReads {
			l.ReadAgain(c.index, c.gen)
			return
		}
		space := c.reply.Space()
		n, err := evloop.Read(c.fd, space)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return
		case err != nil:
			l.fail(c, now, err)
			return
		case n == 0:
			if done, err := c.reply.EOF(); done {
				l.complete(c, now)
			} else {
				l.fail(c, now, err)
			}
			return
		}
		if !l.frame(c, n, now) || n < len(space) {
			return // failed, or drained: the next bytes bring an edge
		}
	}
}

// frame feeds n bytes read to c's reply reader, completing every reply
// they end; it reports false when c failed.
func (l *evLoop) frame(c *evConn, n int, now time.Time) bool {
	for len(c.out) > 0 {
		done, err := c.reply.Feed(n, l.r.lean[c.out[0].req].head)
		switch {
		case err != nil:
			l.fail(c, now, err)
			return false
		case !done:
			return true
		}
		if !l.complete(c, now) {
			return false
		}
		n = 0 // what is left of the read, for the next reply
	}
	return true
}

// complete records c's oldest request, whose reply ended at now; it
// reports false when the server closes the connection after it, which
// fails the requests pipelined behind it (never answered).
func (l *evLoop) complete(c *evConn, now time.Time) bool {
	f := c.reply.Framing()
	s := c.out[0]
	req := &l.r.reqs[s.req]
	c.out = append(c.out[:0], c.out[1:]...)
	l.finish(c, s, now, outcome(req, f.code, statusKind(req, f.code)))
	if !f.keep {
		l.fail(c, now, errClosedAfterReply)
		return false
	}
	return true
}

// errClosedAfterReply fails the requests pipelined behind a reply after
// which the server closed the connection; it classifies as "reset".
var errClosedAfterReply = fmt.Errorf("connection closed after an earlier reply: %w", unix.ECONNRESET)

// fail closes c and ends its requests out with err; a single request
// that went on a reused connection the server had closed before any byte
// of its reply came is sent once more on a new one instead (as the
// goroutine client and net/http do).
func (l *evLoop) fail(c *evConn, now time.Time, err error) {
	retry := len(c.out) == 1 && c.reused && !c.retried && !c.reply.Started() && isReset(err)
	c.closeFD()
	if retry {
		c.retried = true
		l.send(c, now, &l.r.lean[c.out[0].req])
		return
	}
	for _, s := range c.out {
		l.finish(c, s, now, outcome(&l.r.reqs[s.req], 0, Classify(err)))
	}
	c.out = c.out[:0]
}

// finish records request s of c and frees its slot for the next.
func (l *evLoop) finish(c *evConn, s sent, now time.Time, out runners.Outcome) {
	c.rec.Record(s.due, s.sent, now, out)
	l.Done(int(c.index))
}

// Expire fails the connections whose oldest request is past its
// deadline, or every request out when all is set (the grace for them
// ended). A timeout is never retried.
func (l *evLoop) Expire(now time.Time, all bool) {
	for _, c := range l.conns {
		switch {
		case len(c.out) == 0:
		case all:
			c.retried = true
			l.fail(c, now, errCut)
		case now.After(c.out[0].deadline):
			c.retried = true
			l.fail(c, now, errTimedOut)
		}
	}
}

// errTimedOut is a request past its timeout ("timeout"); errCut one in
// flight when the step's grace for in-flight work ended ("canceled").
var (
	errTimedOut = fmt.Errorf("request timed out: %w", context.DeadlineExceeded)
	errCut      = fmt.Errorf("request in flight when the step ended: %w", context.Canceled)
)

// connected reports how the connect of c's socket ended.
func (c *evConn) connected() error {
	c.connecting = false
	errno, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return err
	}
	if errno != 0 {
		return unix.Errno(errno)
	}
	return nil
}

// closeFD closes c's socket, which leaves its loop's epoll with it, and
// drops what was queued on it.
func (c *evConn) closeFD() {
	if c.fd >= 0 {
		unix.Close(c.fd)
		c.fd = -1
	}
	c.connecting = false
	c.queue.Reset()
}
