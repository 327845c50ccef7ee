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
	evloop.Socket // FD -1: not connected
	l             *evLoop
	addr          string
	rec           *runners.Recorder
	rnd           *rand.Rand
	reply         *replyReader
	// out are the requests sent and not yet answered, oldest first: one,
	// or up to http.pipeline, whose replies come in the order sent.
	out        []sent
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
	if c.FD >= 0 && c.addr != lr.addr {
		c.closeFD()
	}
	if c.FD < 0 {
		c.reused = false
		if err := l.dial(c, lr.addr); err != nil {
			l.fail(c, now, err)
			return
		}
	} else if len(c.out) == 1 {
		c.reused = true
	}
	c.Out.Buf = append(c.Out.Buf, lr.wire...)
	l.MarkDirty(int(c.Index))
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
	connecting := err != nil
	if err := l.Attach(&c.Socket, fd); err != nil {
		unix.Close(fd)
		return err
	}
	c.addr, c.connecting = addr, connecting
	c.reply.Reset()
	return nil
}

// Write writes what connection conn has queued, once it is connected.
func (l *evLoop) Write(conn int, now time.Time) {
	if c := l.conns[conn]; c.FD >= 0 && !c.connecting {
		l.Flush(&c.Socket, c, now)
	}
}

// Reading: c's socket is read while requests are out (an idle one's
// event is idleEvent's).
func (c *evConn) Reading() bool { return len(c.out) > 0 }

// Space is the reply reader's buffer.
func (c *evConn) Space() []byte { return c.reply.Space() }

// Frame frames the n bytes read.
func (c *evConn) Frame(n int, now time.Time) bool { return c.l.frame(c, n, now) }

// EOF ends the reply read to the server's close, or fails c.
func (c *evConn) EOF(now time.Time) {
	if done, err := c.reply.EOF(); done {
		c.l.complete(c, now)
	} else {
		c.l.fail(c, now, err)
	}
}

// Fail fails c's requests out with err.
func (c *evConn) Fail(err error, now time.Time) { c.l.fail(c, now, err) }

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
	l.Done(int(c.Index))
}

// Expire fails the connections whose oldest request is past its
// deadline, or every request out when all is set (the grace for them
// ended).
func (l *evLoop) Expire(now time.Time, all bool) { evloop.Expire(l.conns, now, all) }

// Oldest is the deadline of c's oldest request out.
func (c *evConn) Oldest() (time.Time, bool) {
	if len(c.out) > 0 {
		return c.out[0].deadline, true
	}
	return time.Time{}, false
}

// Expire fails c's requests out: timed out, or cut at the step's end
// (all). A timeout is never retried.
func (c *evConn) Expire(now time.Time, all bool) {
	c.retried = true
	err := errTimedOut
	if all {
		err = errCut
	}
	c.l.fail(c, now, err)
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
	errno, err := unix.GetsockoptInt(c.FD, unix.SOL_SOCKET, unix.SO_ERROR)
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
	c.Close()
	c.connecting = false
}
