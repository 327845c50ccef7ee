//go:build linux

package pgload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/sys/unix"

	"github.com/benchtui/benchtui/runners/evloop"
)

// pgConn is one worker's connection in a loop.
type pgConn struct {
	index int32 // in its loop's conns: the epoll events' data
	gen   int32 // counts its sockets, so that a closed one's events are ignored
	fd    int   // -1: none (being dialled, or to dial at the next statement)
	w     *worker
	stmt  []prepared // the mix's statements as prepared on this socket
	reply *replyReader
	// out are the statements sent (or waiting for a connection) and not
	// yet answered, oldest first: one, or up to postgres.pipeline.
	out []pgSent
	// queue is what is queued and not yet written.
	queue   evloop.Outbox
	dialing bool
	err     error // why the last dial failed, for the statement waiting on it
}

// pgSent is one statement out on a connection.
type pgSent struct {
	stmt                int // index in the mix
	due, sent, deadline time.Time
}

// Start puts connection conn's next statement, due at due, on its way:
// queued to write, or waiting for a connection when it has none.
func (l *pgLoop) Start(conn int, due, now time.Time) {
	c := l.conns[conn]
	s := pgSent{stmt: c.w.pickIndex(), due: due}
	if l.r.timeout > 0 { // from now: a connect it waits for is part of it
		s.deadline = now.Add(l.r.timeout)
	}
	c.out = append(c.out, s)
	switch {
	case c.err != nil:
		err := c.err
		c.err = nil
		l.fail(c, now, err)
	case c.fd >= 0:
		l.send(c, len(c.out)-1, now)
	default:
		l.dial(c)
	}
}

// send queues statement out[i] of c, encoded with its arguments, and
// marks it sent at now; one that does not encode fails alone, and send
// reports false: it left out.
func (l *pgLoop) send(c *pgConn, i int, now time.Time) bool {
	s := &c.out[i]
	s.sent = now
	p := &c.stmt[s.stmt]
	if p.wire != nil {
		c.queue.Buf = append(c.queue.Buf, p.wire...)
	} else if err := l.encode(c, p, l.r.stmts[s.stmt]); err != nil {
		done := *s
		c.out = append(c.out[:i], c.out[i+1:]...)
		l.finish(c, done, now, err)
		return false
	}
	l.MarkDirty(int(c.index))
	return true
}

// encode appends p's Bind (with st's arguments, drawn by c's worker),
// Execute and Sync to c's queue.
func (l *pgLoop) encode(c *pgConn, p *prepared, st *statement) error {
	if err := l.eqb.Build(l.tm, p.sd, c.w.makeArgs(st)); err != nil {
		return err
	}
	buf, err := encodeStatement(c.queue.Buf, p, &l.eqb)
	if err != nil {
		return err
	}
	c.queue.Buf = buf
	return nil
}

// Write writes what connection conn has queued, once it is connected.
func (l *pgLoop) Write(conn int, now time.Time) {
	if c := l.conns[conn]; c.fd >= 0 {
		l.flush(c, now)
	}
}

// flush writes what the socket takes of c's queue; it reports false when
// c failed.
func (l *pgLoop) flush(c *pgConn, now time.Time) bool {
	if err := c.queue.Flush(c.fd); err != nil {
		l.fail(c, now, err)
		return false
	}
	return true
}

// Event handles one epoll event of a connection's socket.
func (l *pgLoop) Event(ev unix.EpollEvent, now time.Time) {
	c := l.conns[ev.Fd]
	if c.fd < 0 || ev.Pad != c.gen {
		return // for a socket closed since
	}
	if c.queue.Pending() && !l.flush(c, now) {
		return
	}
	if ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		l.read(c, now)
	}
}

// errClosed is a connection the server closed with statements out.
var errClosed = fmt.Errorf("postgres: the server closed the connection: %w", io.ErrUnexpectedEOF)

// errUnasked is a reply with no statement out.
var errUnasked = errors.New("postgres: a reply to no statement")

// read reads c's socket until it has nothing more (or, after MaxReads,
// hands it back to the loop for its next pass), framing replies. The
// server's messages between statements (notices) are dropped; its
// closing a connection with nothing out only closes it here, and the
// next statement opens a new one.
func (l *pgLoop) read(c *pgConn, now time.Time) {
	for reads := 0; c.fd >= 0; reads++ {
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
		case n == 0 && len(c.out) == 0:
			c.closeFD()
			return
		case n == 0:
			l.fail(c, now, errors.Join(errClosed, c.reply.Failed()))
			return
		}
		if !l.frame(c, n, now) || n < len(space) {
			return // failed, or drained: the next bytes bring an edge
		}
	}
}

// frame feeds n bytes read to c's reply reader, ending each statement
// whose reply they complete; it reports false when c failed.
func (l *pgLoop) frame(c *pgConn, n int, now time.Time) bool {
	for {
		done, failed, err := c.reply.Feed(n)
		n = 0
		switch {
		case err == nil && !done:
			return true
		case err == nil && len(c.out) == 0:
			err = errUnasked
		}
		if err != nil {
			l.fail(c, now, err)
			return false
		}
		s := c.out[0]
		c.out = append(c.out[:0], c.out[1:]...)
		l.finish(c, s, now, failed)
	}
}

// finish records statement s of c, ended at now with err (nil: it
// succeeded), and frees its slot for the next.
func (l *pgLoop) finish(c *pgConn, s pgSent, now time.Time, err error) {
	sent := s.sent
	if sent.IsZero() { // it never left: no connection
		sent = now
	}
	out := failure(err, false)
	out.Name = l.r.stmts[s.stmt].name
	c.w.rec.Record(s.due, sent, now, out)
	l.Done(int(c.index))
}

// fail closes c's socket and ends its statements out with err; the next
// statement opens a new connection.
func (l *pgLoop) fail(c *pgConn, now time.Time, err error) {
	c.closeFD()
	out := c.out
	c.out = c.out[:0]
	for _, s := range out {
		l.finish(c, s, now, err)
	}
}

// errTimedOut is a statement past load.timeout; errStopped one in flight
// when the step's grace for in-flight work ended.
var (
	errTimedOut = fmt.Errorf("postgres: statement timed out: %w", context.DeadlineExceeded)
	errStopped  = fmt.Errorf("postgres: statement in flight when the step ended: %w", context.Canceled)
)

// Expire fails the connections whose oldest statement is past its
// deadline, or every statement out when all is set.
func (l *pgLoop) Expire(now time.Time, all bool) {
	for _, c := range l.conns {
		switch {
		case len(c.out) == 0:
		case all:
			l.fail(c, now, errStopped)
		case !c.out[0].deadline.IsZero() && now.After(c.out[0].deadline):
			l.fail(c, now, errTimedOut)
		}
	}
}

// dial opens a new connection for c in a goroutine of its own (a connect
// and its authentication take round trips the loop does not wait for);
// Woken takes it in.
func (l *pgLoop) dial(c *pgConn) {
	if c.dialing {
		return
	}
	c.dialing = true
	l.dials.Go(func() {
		ctx, cancel := context.WithTimeout(l.dialCtx, connectTimeout)
		defer cancel()
		d := dialResult{c: c}
		conn, err := l.r.conns.connect(ctx)
		if err == nil {
			d.rc, err = l.r.hijack(ctx, conn)
		}
		d.err = err
		l.dialed <- d
		l.Wake()
	})
}

// dialDone takes in a reconnect: its socket, and the statements that
// waited for it are sent; or, when it failed, they fail with its error.
func (l *pgLoop) dialDone(d dialResult, now time.Time) {
	c := d.c
	c.dialing = false
	err := d.err
	if err == nil {
		err = l.install(c, d.rc)
	}
	if err != nil {
		l.fail(c, now, err)
		return
	}
	for i := 0; i < len(c.out); { // in order: the replies come so
		if l.send(c, i, now) {
			i++
		}
	}
}

// install makes rc's socket c's and registers it with the loop.
func (l *pgLoop) install(c *pgConn, rc *rawConn) error {
	c.gen++
	if err := l.Register(rc.fd, c.index, c.gen); err != nil {
		rc.close()
		return err
	}
	c.fd, c.stmt = rc.fd, rc.stmt
	rc.fd = -1 // c's now
	c.reply.Reset()
	return nil
}

// closeFD closes c's socket, which leaves its loop's epoll with it, and
// drops what was queued on it.
func (c *pgConn) closeFD() {
	if c.fd >= 0 {
		unix.Close(c.fd)
		c.fd = -1
	}
	c.queue.Reset()
}
