//go:build linux

package evloop

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// fakeHandler is a protocol for the loop's tests: a request is "ping\n",
// a reply is any bytes up to a '\n'; its connections are one end of a
// socketpair each, the test holding the other end (the peer).
type fakeHandler struct {
	l       *Loop
	conns   []*fakeConn
	woken   chan struct{}
	expired int // Expire(now, false) calls
	cut     int // Expire(now, true) calls
}

// fakeConn is one connection of fakeHandler.
type fakeConn struct {
	Socket
	h        *fakeHandler
	peer     int
	buf      []byte // the reply reader's buffer (its size sets a read's)
	got      []byte // every byte framed
	replies  int
	out      int // requests out
	deadline time.Time
	failed   []error
	eofs     int
}

func (c *fakeConn) Reading() bool { return c.FD >= 0 }
func (c *fakeConn) Space() []byte { return c.buf }
func (c *fakeConn) EOF(time.Time) { c.eofs++; c.Close() }
func (c *fakeConn) Fail(err error, _ time.Time) {
	c.failed = append(c.failed, err)
	c.Close()
	for ; c.out > 0; c.out-- {
		c.h.l.Done(int(c.Index))
	}
}

// Frame counts each '\n' read as a reply, which ends the oldest request
// out (if any).
func (c *fakeConn) Frame(n int, _ time.Time) bool {
	read := c.buf[:n]
	c.got = append(c.got, read...)
	for range bytes.Count(read, []byte("\n")) {
		c.replies++
		if c.out > 0 {
			c.out--
			c.h.l.Done(int(c.Index))
		}
	}
	return true
}

func (c *fakeConn) Oldest() (time.Time, bool) { return c.deadline, c.out > 0 }
func (c *fakeConn) Expire(now time.Time, all bool) {
	if all {
		c.h.cut++
	} else {
		c.h.expired++
	}
	c.Fail(errors.New("expired"), now)
}

func (h *fakeHandler) Start(conn int, _, now time.Time) {
	c := h.conns[conn]
	c.out++
	c.Out.Buf = append(c.Out.Buf, "ping\n"...)
	h.l.MarkDirty(conn)
}

func (h *fakeHandler) Write(conn int, now time.Time) {
	if c := h.conns[conn]; c.FD >= 0 {
		h.l.Flush(&c.Socket, c, now)
	}
}

func (h *fakeHandler) Event(ev unix.EpollEvent, now time.Time) {
	if c := h.conns[ev.Fd]; c.Current(ev) {
		h.l.Ready(&c.Socket, c, ev, now)
	}
}

func (h *fakeHandler) Woken(time.Time) {
	select {
	case h.woken <- struct{}{}:
	default:
	}
}

func (h *fakeHandler) Expire(now time.Time, all bool) { Expire(h.conns, now, all) }

func (h *fakeHandler) Close() {
	for _, c := range h.conns {
		c.Close()
		if c.peer >= 0 {
			unix.Close(c.peer)
			c.peer = -1
		}
	}
}

// newTestLoop is a loop with a fakeHandler and n connections of slots
// requests each, over socketpairs; bufSize is their reads' size. The loop
// is closed (its sockets and peers with it) when the test ends.
func newTestLoop(t *testing.T, n, slots, bufSize int) (*Loop, *fakeHandler) {
	t.Helper()
	env := runners.NewStepEnv(&plan.Group{ID: "g"}, plan.Load{Concurrency: n}, n)
	l, err := newLoop(env, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	h := &fakeHandler{l: l, woken: make(chan struct{}, 1)}
	l.h = h
	t.Cleanup(l.close)
	for id := range n {
		c := &fakeConn{Socket: Socket{Index: int32(l.AddConn(id, slots)), FD: -1}, h: h, peer: -1, buf: make([]byte, bufSize)}
		h.conns = append(h.conns, c)
		attachPair(t, l, c)
	}
	return l, h
}

// attachPair gives c a new socketpair: its end attached to l, the other
// its peer (blocking, for the test to read and write).
func attachPair(t *testing.T, l *Loop, c *fakeConn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.SetNonblock(fds[0], true); err != nil {
		t.Fatal(err)
	}
	if err := l.Attach(&c.Socket, fds[0]); err != nil {
		t.Fatal(err)
	}
	if c.peer >= 0 {
		unix.Close(c.peer)
	}
	c.peer = fds[1]
}

// pass is one pass of the loop without its load: a wait of up to 10 s
// (none when events were handed back), then the events and those handed
// back go to the handler. It reports the events the wait brought.
func pass(t *testing.T, l *Loop) []unix.EpollEvent {
	t.Helper()
	wait := 10 * time.Second
	if len(l.again) > 0 {
		wait = 0
	}
	n, err := l.epollWait(wait)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	evs := append([]unix.EpollEvent(nil), l.events[:n]...)
	for _, ev := range evs {
		if ev.Fd != wakeData {
			l.h.Event(ev, now)
		}
	}
	l.replay(now)
	return evs
}

func write(t *testing.T, fd int, s string) {
	t.Helper()
	if n, err := unix.Write(fd, []byte(s)); err != nil || n != len(s) {
		t.Fatalf("write %q: %d, %v", s, n, err)
	}
}

// TestReadsSplitAndBatchedReplies: edge-triggered reads frame a reply
// split across many writes (each write an edge, a partial reply until the
// last), and many replies that came in one read.
func TestReadsSplitAndBatchedReplies(t *testing.T) {
	l, h := newTestLoop(t, 1, 1, 4096)
	c := h.conns[0]
	pass(t, l) // the new socket's write edge
	for i, part := range []string{"re", "pl", "y-", "one\n"} {
		write(t, c.peer, part)
		if evs := pass(t, l); len(evs) != 1 || evs[0].Fd != c.Index || evs[0].Pad != c.Gen {
			t.Fatalf("write %d: events %+v, want one of the socket", i, evs)
		}
		if want := min(i/3, 1); c.replies != want {
			t.Fatalf("after part %d: %d replies, want %d", i, c.replies, want)
		}
	}
	write(t, c.peer, "a\nb\nc\nd\ne\n")
	pass(t, l)
	if c.replies != 6 || string(c.got) != "reply-one\na\nb\nc\nd\ne\n" {
		t.Errorf("%d replies, framed %q; want 6, in order", c.replies, c.got)
	}
}

// TestMaxReadsHandsBack: a socket with more than MaxReads reads waiting
// is read MaxReads times and handed back (readAgain), so that the loop's
// other socket is served in the same pass; the handed-back one is
// drained over the next passes, without a wait, byte for byte, and
// then waits for its next edge.
func TestMaxReadsHandsBack(t *testing.T) {
	l, h := newTestLoop(t, 2, 1, 8)
	flood, other := h.conns[0], h.conns[1]
	pass(t, l) // the write edges
	big := bytes.Repeat([]byte("0123456\n"), MaxReads*5+3)
	write(t, flood.peer, string(big))
	write(t, other.peer, "pong\n")
	if evs := pass(t, l); len(evs) != 2 {
		t.Fatalf("events %+v, want both sockets' in one wait", evs)
	}
	if other.replies != 1 {
		t.Fatalf("other socket: %d replies after the first pass, want 1", other.replies)
	}
	// The event's MaxReads reads, and as many for the hand-back the pass
	// replays at its end (run's replay takes what this pass handed back).
	if len(flood.got) != 2*MaxReads*8 || len(l.again) != 1 {
		t.Fatalf("flooded socket: %d bytes read, %d handed back; want %d and 1", len(flood.got), len(l.again), 2*MaxReads*8)
	}
	if w := l.waitFor(time.Now()); w != 0 {
		t.Errorf("waitFor with an event handed back = %v, want 0", w)
	}
	for i := 0; len(l.again) > 0 && i < 10; i++ { // a pass reads MaxReads
		pass(t, l)
	}
	if !bytes.Equal(flood.got, big) || len(l.again) != 0 || flood.replies != MaxReads*5+3 {
		t.Errorf("flooded socket: %d of %d bytes framed, %d handed back; want all, none", len(flood.got), len(big), len(l.again))
	}
}

// TestOutboxPartialWrites: a request larger than the socket's buffer, to
// a peer that reads only what is there each time: the flush stops at
// EAGAIN with bytes pending, each of the peer's reads brings the write
// edge (EPOLLOUT) that writes more, and the peer gets every byte in
// order.
func TestOutboxPartialWrites(t *testing.T) {
	l, h := newTestLoop(t, 1, 1, 4096)
	c := h.conns[0]
	if err := unix.SetsockoptInt(c.FD, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
	pass(t, l) // the new socket's write edge
	want := make([]byte, 1<<20)
	for i := range want {
		want[i] = byte(i % 251)
	}
	c.Out.Buf = append(c.Out.Buf, want...)
	h.Write(0, time.Now())
	if !c.Out.Pending() {
		t.Fatal("1 MiB went in one flush: no partial write to test")
	}
	var got []byte
	buf := make([]byte, 1<<20)
	rounds := 0
	for ; len(got) < len(want) && rounds < 10000; rounds++ {
		got = append(got, readWaiting(t, c.peer, buf)...)
		if c.Out.Pending() {
			if evs := pass(t, l); len(evs) != 1 || evs[0].Events&unix.EPOLLOUT == 0 {
				t.Fatalf("round %d: events %+v, want the socket's write edge", rounds, evs)
			}
		}
	}
	if !bytes.Equal(got, want) || c.Out.Pending() || len(c.failed) != 0 {
		t.Fatalf("peer got %d of %d bytes (equal %v), pending %v, failures %v", len(got), len(want), bytes.Equal(got, want), c.Out.Pending(), c.failed)
	}
	if rounds < 3 {
		t.Errorf("%d rounds: the writes were not partial", rounds)
	}
	if len(c.Out.Buf) != 0 {
		t.Errorf("outbox holds %d bytes after all were written, want it reset", len(c.Out.Buf))
	}
}

// readWaiting reads what fd has waiting (at least a byte, blocking for
// it) into buf.
func readWaiting(t *testing.T, fd int, buf []byte) []byte {
	t.Helper()
	n, err := unix.Read(fd, buf)
	if err != nil || n == 0 {
		t.Fatalf("peer read: %d, %v", n, err)
	}
	for n < len(buf) {
		m, _, err := unix.Recvfrom(fd, buf[n:], unix.MSG_DONTWAIT)
		if err != nil || m == 0 {
			break
		}
		n += m
	}
	return buf[:n]
}

// TestStaleEventsIgnored: once a connection's socket is closed and a new
// one attached (its next generation), an event of the old one, handed
// back or late, reads nothing; the new socket's are read.
func TestStaleEventsIgnored(t *testing.T) {
	l, h := newTestLoop(t, 1, 1, 4096)
	c := h.conns[0]
	pass(t, l)
	old := c.Gen
	write(t, c.peer, "old\n")
	c.Close()
	stale := unix.EpollEvent{Events: unix.EPOLLIN, Fd: c.Index, Pad: old}
	if c.Current(stale) {
		t.Fatal("a closed socket's event is current")
	}
	attachPair(t, l, c)
	if c.Gen == old || c.Current(stale) {
		t.Fatalf("generation %d after %d: the old socket's event is current", c.Gen, old)
	}
	pass(t, l) // the new socket's write edge
	write(t, c.peer, "new\n")
	l.again = append(l.again, stale) // as readAgain before the close
	h.Event(stale, time.Now())
	pass(t, l)
	if string(c.got) != "new\n" || len(c.failed) != 0 {
		t.Errorf("framed %q, failures %v; want the new socket's reply alone", c.got, c.failed)
	}
}

// TestReadsPeerClose: the peer's close is the connection's EOF, after
// the bytes it sent before it, when both came before the loop's wait (one
// edge: the short read of the bytes does not end the reads), also when
// the bytes take more than MaxReads reads (the hand-back keeps the close).
func TestReadsPeerClose(t *testing.T) {
	for _, size := range []int{5, 3*MaxReads*8 + 5} {
		l, h := newTestLoop(t, 1, 1, 8)
		c := h.conns[0]
		pass(t, l)
		sent := bytes.Repeat([]byte("x"), size)
		write(t, c.peer, string(sent))
		unix.Close(c.peer)
		c.peer = -1
		pass(t, l)
		for i := 0; len(l.again) > 0 && i < 10; i++ {
			pass(t, l)
		}
		if !bytes.Equal(c.got, sent) || c.eofs != 1 || c.FD != -1 {
			t.Errorf("%d bytes sent: %d framed, %d EOFs, fd %d; want all, 1, closed", size, len(c.got), c.eofs, c.FD)
		}
	}
}

// TestExpireChoosesConnections: only connections with a request out are
// expired: past its deadline (a zero deadline never is), or all of them
// at the step's end.
func TestExpireChoosesConnections(t *testing.T) {
	now := time.Now()
	h := &fakeHandler{l: &Loop{env: runners.NewStepEnv(&plan.Group{ID: "g"}, plan.Load{Concurrency: 1}, 1)}}
	mk := func(out int, deadline time.Time) *fakeConn {
		return &fakeConn{Socket: Socket{FD: -1}, h: h, out: out, deadline: deadline}
	}
	idle, none, later, past := mk(0, now.Add(-time.Second)), mk(1, time.Time{}), mk(1, now.Add(time.Second)), mk(2, now.Add(-time.Nanosecond))
	h.conns = []*fakeConn{idle, none, later, past}
	h.l.busy = 4 // the requests out
	Expire(h.conns, now, false)
	if h.expired != 1 || len(past.failed) != 1 || past.out != 0 || len(idle.failed)+len(none.failed)+len(later.failed) != 0 {
		t.Fatalf("expired %d; failures idle %v, no deadline %v, later %v, past %v; want the past one's alone",
			h.expired, idle.failed, none.failed, later.failed, past.failed)
	}
	Expire(h.conns, now, true)
	if h.cut != 2 || len(none.failed) != 1 || len(later.failed) != 1 || len(idle.failed) != 0 || h.l.busy != 0 {
		t.Errorf("cut %d, busy %d; failures idle %v, no deadline %v, later %v; want the two out cut, none busy",
			h.cut, h.l.busy, idle.failed, none.failed, later.failed)
	}
}

// runLoop runs l.run in a goroutine; its result comes on the channel.
func runLoop(l *Loop, loadCtx, opCtx context.Context) <-chan error {
	done := make(chan error, 1)
	go func() { done <- l.run(loadCtx, opCtx) }()
	return done
}

// within waits up to 10 s for ch.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10 s", what)
	}
	var zero T
	return zero
}

// TestWakeFromAnotherGoroutine: a loop with nothing to do waits without
// a limit; Wake, from another goroutine, has it call the handler's
// Woken; the load's end ends it.
func TestWakeFromAnotherGoroutine(t *testing.T) {
	l, h := newTestLoop(t, 1, 0, 4096)
	if w := l.waitFor(time.Now()); w != -1 {
		t.Fatalf("idle loop waits %v, want -1 (no limit)", w)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runLoop(l, ctx, context.Background())
	go l.Wake()
	within(t, h.woken, "Woken after Wake")
	cancel()
	if err := within(t, done, "end of the loop"); err != nil {
		t.Fatal(err)
	}
}

// TestLoopEndWaitsForRequestsOut: when the load ends with a request out,
// the loop sends nothing more and ends once the reply comes; with the
// grace ended (opCtx) instead, the request is cut (Expire with all).
func TestLoopEndWaitsForRequestsOut(t *testing.T) {
	for _, graceEnds := range []bool{false, true} {
		l, h := newTestLoop(t, 1, 1, 4096)
		c := h.conns[0]
		loadCtx, endLoad := context.WithCancel(context.Background())
		opCtx, endGrace := context.WithCancel(context.Background())
		done := runLoop(l, loadCtx, opCtx)
		buf := make([]byte, 64)
		if got := readWaiting(t, c.peer, buf); string(got) != "ping\n" {
			t.Fatalf("peer read %q, want one request", got)
		}
		endLoad()
		l.Wake() // the load's end is seen (its AfterFunc wakes the loop too)
		if graceEnds {
			endGrace()
		} else {
			write(t, c.peer, "pong\n")
		}
		if err := within(t, done, "end of the loop"); err != nil {
			t.Fatal(err)
		}
		// The loop has returned: its state is the test's to read.
		if graceEnds && (h.cut != 1 || c.replies != 0) || !graceEnds && (c.replies != 1 || h.cut != 0) {
			t.Errorf("grace ends %v: %d replies, %d cut", graceEnds, c.replies, h.cut)
		}
		if l.busy != 0 || l.env.InFlight() != 0 {
			t.Errorf("grace ends %v: %d busy, %d in flight at the end, want none", graceEnds, l.busy, l.env.InFlight())
		}
		endGrace()
	}
}

// TestLoopExpiresPastDeadline: a request unanswered past its deadline
// is expired by the loop's scan (every scanEvery), freeing its slot.
func TestLoopExpiresPastDeadline(t *testing.T) {
	l, h := newTestLoop(t, 1, 1, 4096)
	l.scanEvery = time.Millisecond
	c := h.conns[0]
	c.deadline = time.Now() // past by the first scan
	loadCtx, endLoad := context.WithCancel(context.Background())
	done := runLoop(l, loadCtx, context.Background())
	buf := make([]byte, 64)
	if got := readWaiting(t, c.peer, buf); string(got) != "ping\n" {
		t.Fatalf("peer read %q, want one request", got)
	}
	// The expiry closes the socket: the peer reads its end.
	if n, err := unix.Read(c.peer, buf); n != 0 || err != nil {
		t.Fatalf("peer read %d, %v after the expiry, want the socket's close", n, err)
	}
	endLoad()
	if err := within(t, done, "end of the loop"); err != nil {
		t.Fatal(err)
	}
	if h.expired == 0 || h.cut != 0 || c.replies != 0 || l.busy != 0 {
		t.Errorf("%d expired, %d cut, %d replies, %d busy; want expiries alone, none busy", h.expired, h.cut, c.replies, l.busy)
	}
}

// TestSocketPathAllocatesNothing: a request's write (Flush) and its
// reply's read and framing (Ready) allocate nothing: the protocol's
// connection is passed as a pointer.
func TestSocketPathAllocatesNothing(t *testing.T) {
	l, h := newTestLoop(t, 1, 1, 4096)
	c := h.conns[0]
	c.got = make([]byte, 0, 1<<16)
	c.Out.Buf = make([]byte, 0, 64)
	reply, buf := []byte("pong\n"), make([]byte, 64)
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: c.Index, Pad: c.Gen}
	allocs := testing.AllocsPerRun(100, func() {
		now := time.Now()
		c.Out.Buf = append(c.Out.Buf, "ping\n"...)
		l.Flush(&c.Socket, c, now)
		if n, err := unix.Read(c.peer, buf); n != 5 || err != nil {
			t.Fatalf("peer read %d, %v", n, err)
		}
		if n, err := unix.Write(c.peer, reply); n != len(reply) || err != nil {
			t.Fatalf("peer write %d, %v", n, err)
		}
		l.Ready(&c.Socket, c, ev, now)
	})
	if allocs != 0 || c.replies != 101 {
		t.Errorf("%.1f allocations per request, %d replies; want none, 101", allocs, c.replies)
	}
}
