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
	evloop.Socket // FD -1: none (being dialled, or to dial at the next statement)
	l             *pgLoop
	w             *worker
	stmt          []prepared // the mix's statements as prepared on this socket
	reply         *replyReader
	// out are the statements sent (or waiting for a connection) and not
	// yet answered, oldest first: one, or up to postgres.pipeline.
	out     []pgSent
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
	case c.FD >= 0:
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
		c.Out.Buf = append(c.Out.Buf, p.wire...)
	} else if err := l.encode(c, p, l.r.stmts[s.stmt]); err != nil {
		done := *s
		c.out = append(c.out[:i], c.out[i+1:]...)
		l.finish(c, done, now, err)
		return false
	}
	l.MarkDirty(int(c.Index))
	return true
}

// encode appends p's Bind (with st's arguments, drawn by c's worker),
// Execute and Sync to c's queue.
func (l *pgLoop) encode(c *pgConn, p *prepared, st *statement) error {
	if err := l.eqb.Build(l.tm, p.sd, c.w.makeArgs(st)); err != nil {
		return err
	}
	buf, err := encodeStatement(c.Out.Buf, p, &l.eqb)
	if err != nil {
		return err
	}
	c.Out.Buf = buf
	return nil
}

// Write writes what connection conn has queued, once it is connected.
func (l *pgLoop) Write(conn int, now time.Time) {
	if c := l.conns[conn]; c.FD >= 0 {
		l.Flush(&c.Socket, c, now)
	}
}

// Event handles one epoll event of a connection's socket.
func (l *pgLoop) Event(ev unix.EpollEvent, now time.Time) {
	c := l.conns[ev.Fd]
	if c.Current(ev) { // not for a socket closed since
		l.Ready(&c.Socket, c, ev, now)
	}
}

// errClosed is a connection the server closed with statements out.
var errClosed = fmt.Errorf("postgres: the server closed the connection: %w", io.ErrUnexpectedEOF)

// errUnasked is a reply with no statement out.
var errUnasked = errors.New("postgres: a reply to no statement")

// Reading: c's socket is read while it is open, statements out or not.
// The server's messages between statements (notices) are dropped.
func (c *pgConn) Reading() bool { return c.FD >= 0 }

// Space is the reply reader's buffer.
func (c *pgConn) Space() []byte { return c.reply.Space() }

// Frame frames the n bytes read.
func (c *pgConn) Frame(n int, now time.Time) bool { return c.l.frame(c, n, now) }

// EOF: the server's closing a connection with nothing out only closes
// it here, and the next statement opens a new one; with statements out,
// they fail.
func (c *pgConn) EOF(now time.Time) {
	if len(c.out) == 0 {
		c.Close()
		return
	}
	c.l.fail(c, now, errors.Join(errClosed, c.reply.Failed()))
}

// Fail fails c's statements out with err.
func (c *pgConn) Fail(err error, now time.Time) { c.l.fail(c, now, err) }

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
	l.Done(int(c.Index))
}

// fail closes c's socket and ends its statements out with err; the next
// statement opens a new connection.
func (l *pgLoop) fail(c *pgConn, now time.Time, err error) {
	c.Close()
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
func (l *pgLoop) Expire(now time.Time, all bool) { evloop.Expire(l.conns, now, all) }

// Oldest is the deadline of c's oldest statement out (zero: none).
func (c *pgConn) Oldest() (time.Time, bool) {
	if len(c.out) == 0 {
		return time.Time{}, false
	}
	return c.out[0].deadline, true
}

// Expire fails c's statements out: timed out, or stopped at the step's
// end.
func (c *pgConn) Expire(now time.Time, all bool) {
	if all {
		c.l.fail(c, now, errStopped)
	} else {
		c.l.fail(c, now, errTimedOut)
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
	if err := l.Attach(&c.Socket, rc.fd); err != nil {
		rc.close()
		return err
	}
	c.stmt = rc.stmt
	rc.fd = -1 // c's now
	c.reply.Reset()
	return nil
}
