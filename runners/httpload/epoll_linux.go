//go:build linux

package httpload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/benchtui/benchtui/runners"
)

// epollSupported says whether client: epoll runs here: Linux only.
const epollSupported = true

// epollRunner is the HTTP runner with client: epoll. It is a Driver: its
// event loops, one per GOMAXPROCS, own the step's connections (one per
// worker of load.concurrency) and run each as a closed loop, as the
// engine's would: a request is due when the one before it on its
// connection ended.
type epollRunner struct{ *Runner }

var _ runners.Driver = (*epollRunner)(nil)

func newEpollRunner(r *Runner) (runners.Runner, error) {
	if r.lean == nil {
		return nil, errors.New("client: epoll sends plain http:// HTTP/1.1 requests only")
	}
	return &epollRunner{Runner: r}, nil
}

// Drive runs the step's connections until ctx ends and their requests
// out have finished, or env.Ops (the grace for them) ends.
func (r *epollRunner) Drive(ctx context.Context, env *runners.StepEnv) error {
	if env.Shard.Active() {
		return errors.New("client: epoll does not run sharded")
	}
	ops := env.Ops
	if ops == nil {
		ops = ctx
	}
	n := max(env.Load.Workers(), 1)
	env.SetUnits(n)
	loops := make([]*evLoop, min(runtime.GOMAXPROCS(0), n))
	for i := range loops {
		l, err := newEvLoop(r.Runner, env)
		if err != nil {
			closeLoops(loops)
			return err
		}
		loops[i] = l
	}
	for id := range n {
		loops[id%len(loops)].addConn(id, env.Recorder(id))
	}
	if env.Load.OpenLoop() {
		start, paused := time.Now(), env.Gate().PausedTotal()
		for i, l := range loops {
			l.sched = &schedule{start: start, rate: env.Load.Rate, stride: int64(len(loops)), offset: int64(i), pausedBefore: paused}
		}
	}
	errs := make([]error, len(loops))
	var wg sync.WaitGroup
	for i, l := range loops {
		wg.Go(func() {
			defer env.Contain()
			defer l.close()
			errs[i] = l.run(ctx, ops)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func closeLoops(loops []*evLoop) {
	for _, l := range loops {
		if l != nil {
			l.close()
		}
	}
}

// target is a request's resolved address.
type target struct {
	family int
	sa     unix.Sockaddr
	err    error
}

// resolveTargets resolves each request's host:port once, for one loop
// (a unix.Sockaddr is written by every connect that uses it).
func resolveTargets(reqs []leanRequest) map[string]target {
	out := map[string]target{}
	for _, lr := range reqs {
		if _, ok := out[lr.addr]; ok {
			continue
		}
		a, err := net.ResolveTCPAddr("tcp", lr.addr)
		switch {
		case err != nil:
			out[lr.addr] = target{err: err}
		case a.IP.To4() != nil:
			sa := &unix.SockaddrInet4{Port: a.Port}
			copy(sa.Addr[:], a.IP.To4())
			out[lr.addr] = target{family: unix.AF_INET, sa: sa}
		default:
			sa := &unix.SockaddrInet6{Port: a.Port}
			copy(sa.Addr[:], a.IP.To16())
			out[lr.addr] = target{family: unix.AF_INET6, sa: sa}
		}
	}
	return out
}

// evLoop is one event loop: its connections, its epoll instance, and an
// eventfd that wakes it when the load or its grace ends.
type evLoop struct {
	r       *Runner
	env     *runners.StepEnv
	targets map[string]target
	epfd    int
	wakefd  int
	conns   []*evConn
	events  []unix.EpollEvent
	ready   []*evConn // idle, to send their next request
	busy    int       // connections with a request out
	// stopping: the load ended, nothing more is sent; paused: the step's
	// gate is closed, read once per wake-up.
	stopping, paused bool
	scanEvery        time.Duration // how often requests' deadlines are checked
	scanned          time.Time
	// sched is the loop's share of an open loop's arrivals; nil for a
	// closed loop. noPwait2: the kernel has no epoll_pwait2.
	sched    *schedule
	noPwait2 bool
	// wakeMu guards the eventfd against a wake-up (from a context's
	// AfterFunc) racing the loop's close.
	wakeMu sync.Mutex
}

// wakeData marks the eventfd's events; a connection's carry its index.
const wakeData = -1

func newEvLoop(r *Runner, env *runners.StepEnv) (*evLoop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	wakefd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	l := &evLoop{r: r, env: env, targets: resolveTargets(r.lean), epfd: epfd, wakefd: wakefd,
		scanEvery: min(max(r.timeout()/10, time.Millisecond), 100*time.Millisecond)}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeData}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wakefd, &ev); err != nil {
		l.close()
		return nil, fmt.Errorf("epoll: %w", err)
	}
	return l, nil
}

// addConn gives the loop the connection of worker id.
func (l *evLoop) addConn(id int, rec *runners.Recorder) {
	c := &evConn{index: int32(len(l.conns)), fd: -1, req: -1, rec: rec, reply: newReplyReader(),
		rnd: rand.New(rand.NewPCG(uint64(id)+1, uint64(time.Now().UnixNano())))}
	l.conns = append(l.conns, c)
	l.ready = append(l.ready, c)
	l.events = append(l.events, unix.EpollEvent{})
}

// close closes the loop's sockets, epoll instance and eventfd.
func (l *evLoop) close() {
	for _, c := range l.conns {
		c.closeFD()
	}
	l.conns = nil
	l.wakeMu.Lock()
	defer l.wakeMu.Unlock()
	if l.epfd >= 0 {
		unix.Close(l.epfd)
		unix.Close(l.wakefd)
		l.epfd, l.wakefd = -1, -1
	}
}

// wake makes the loop's epoll_wait return.
func (l *evLoop) wake() {
	l.wakeMu.Lock()
	defer l.wakeMu.Unlock()
	if l.wakefd >= 0 {
		one := [8]byte{1}
		unix.Write(l.wakefd, one[:])
	}
}

// run is the loop: it starts the idle connections' requests, waits for
// events, and reads each wake-up's clock once, which is the end of every
// reply it completes and the due time of the requests sent after them.
func (l *evLoop) run(loadCtx, opCtx context.Context) error {
	defer context.AfterFunc(loadCtx, l.wake)()
	defer context.AfterFunc(opCtx, l.wake)()
	now := time.Now()
	l.scanned = now
	for {
		l.stopping = l.stopping || loadCtx.Err() != nil
		if opCtx.Err() != nil {
			l.expire(now, true)
			return nil
		}
		l.paused = l.env.Gate().Paused()
		if l.sched != nil {
			l.arrivals(now)
		} else {
			l.startReady(now)
		}
		if l.stopping && l.busy == 0 {
			return nil
		}
		n, err := l.epollWait(l.waitFor(now))
		now = time.Now()
		if err != nil && err != unix.EINTR {
			return fmt.Errorf("epoll_wait: %w", err)
		}
		for _, ev := range l.events[:max(n, 0)] {
			l.event(ev, now)
		}
		if now.Sub(l.scanned) >= l.scanEvery {
			l.expire(now, false)
			l.scanned = now
		}
	}
}

// waitFor is how long epoll_wait may block (-1: until an event): in a
// closed loop not at all with requests to send; in an open loop until
// the next arrival; and no longer than the next deadline check with
// requests out or a pause to watch.
func (l *evLoop) waitFor(now time.Time) time.Duration {
	wait := time.Duration(-1)
	if l.busy > 0 || l.paused {
		wait = l.scanEvery
	}
	switch {
	case l.stopping || l.paused:
		return wait
	case l.sched != nil && wait < 0:
		return l.untilNext(now)
	case l.sched != nil:
		return min(wait, l.untilNext(now))
	case len(l.ready) > 0:
		return 0
	}
	return wait
}

// startReady sends the next request of every idle connection, unless
// the load has ended or is paused.
func (l *evLoop) startReady(now time.Time) {
	if l.stopping || l.paused {
		return
	}
	ready := l.ready
	l.ready = l.ready[len(l.ready):]
	for _, c := range ready {
		l.start(c, now)
	}
	if len(l.ready) == 0 {
		l.ready = ready[:0] // reuse the array
	}
}

// event handles one epoll event.
func (l *evLoop) event(ev unix.EpollEvent, now time.Time) {
	if ev.Fd == wakeData {
		var b [8]byte
		unix.Read(l.wakefd, b[:])
		return
	}
	c := l.conns[ev.Fd]
	if c.fd < 0 || ev.Pad != c.gen {
		return // for a socket closed since
	}
	if c.req < 0 {
		l.idleEvent(c)
		return
	}
	if c.connecting {
		if ev.Events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if err := c.connected(); err != nil {
			l.fail(c, now, err)
			return
		}
	}
	if len(c.pending) > 0 && !l.flush(c, now) {
		return
	}
	if ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		l.read(c, now)
	}
}

// idleEvent: an idle connection is readable: the server closed it (or
// sent what nobody asked for): it is closed, and the next request dials.
func (l *evLoop) idleEvent(c *evConn) {
	if _, err := unix.Read(c.fd, c.reply.Space()); err != unix.EAGAIN {
		c.closeFD()
	}
}

// start sends connection c's next request of the mix, due now.
func (l *evLoop) start(c *evConn, now time.Time) { l.startAt(c, now, now) }

// startAt sends connection c's next request of the mix, due at due, now.
func (l *evLoop) startAt(c *evConn, due, now time.Time) {
	c.req = l.r.mix[c.rnd.IntN(len(l.r.mix))]
	c.due, c.sent, c.deadline, c.retried = due, now, now.Add(l.r.timeout()), false
	l.busy++
	l.env.AddInFlight(1)
	l.send(c, now)
}

// send writes c's request, dialling first when c has no connection to
// its address.
func (l *evLoop) send(c *evConn, now time.Time) {
	lr := &l.r.lean[c.req]
	if c.fd >= 0 && c.addr != lr.addr {
		c.closeFD()
	}
	c.reused = c.fd >= 0
	if c.fd < 0 {
		if err := l.dial(c, lr.addr); err != nil {
			l.fail(c, now, err)
			return
		}
	}
	c.pending = lr.wire
	if !c.connecting {
		l.flush(c, now)
	}
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
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: c.index, Pad: c.gen}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		unix.Close(fd)
		return err
	}
	c.fd, c.addr, c.connecting = fd, addr, err != nil
	c.reply.Reset()
	return nil
}

// flush writes what the socket takes of c's request; it reports false
// when the request failed.
func (l *evLoop) flush(c *evConn, now time.Time) bool {
	for len(c.pending) > 0 {
		n, err := unix.Write(c.fd, c.pending)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return true // the rest when the socket's buffer has room
		case err != nil:
			l.fail(c, now, err)
			return false
		}
		c.pending = c.pending[n:]
	}
	return true
}

// read reads c's socket until it has nothing more, framing replies.
func (l *evLoop) read(c *evConn, now time.Time) {
	head := l.r.lean[c.req].head
	for c.req >= 0 {
		space := c.reply.Space()
		n, err := unix.Read(c.fd, space)
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
		done, err := c.reply.Feed(n, head)
		switch {
		case err != nil:
			l.fail(c, now, err)
			return
		case done:
			l.complete(c, now)
			return
		case n < len(space):
			return // drained: the next bytes bring an edge
		}
	}
}

// complete records c's reply, ended at now.
func (l *evLoop) complete(c *evConn, now time.Time) {
	f := c.reply.Framing()
	req := &l.r.reqs[c.req]
	if !f.keep {
		c.closeFD()
	}
	l.finish(c, now, outcome(req, f.code, statusKind(req, f.code)))
}

// fail ends c's request with err, or sends it once more on a new
// connection when a reused one turned out closed by the server before any
// byte of the reply came (as the goroutine client and net/http do).
func (l *evLoop) fail(c *evConn, now time.Time, err error) {
	retry := c.reused && !c.retried && !c.reply.Started() && isReset(err)
	c.closeFD()
	if retry {
		c.retried = true
		l.send(c, now)
		return
	}
	l.finish(c, now, outcome(&l.r.reqs[c.req], 0, Classify(err)))
}

// finish records c's request and makes c idle, ready for its next.
func (l *evLoop) finish(c *evConn, now time.Time, out runners.Outcome) {
	c.rec.Record(c.due, c.sent, now, out)
	l.env.AddInFlight(-1)
	l.busy--
	c.req = -1
	c.pending = nil
	l.ready = append(l.ready, c)
}

// expire fails the requests past their deadline, or every request out
// when all is set (the grace for them ended).
func (l *evLoop) expire(now time.Time, all bool) {
	for _, c := range l.conns {
		if c.req >= 0 && (all || now.After(c.deadline)) {
			c.retried = true // a timeout is never retried
			l.fail(c, now, errTimedOut)
		}
	}
}

// errTimedOut is a request past its timeout; it classifies as "timeout".
var errTimedOut = fmt.Errorf("request timed out: %w", context.DeadlineExceeded)

// evConn is one worker's connection in a loop.
type evConn struct {
	index int32 // in its loop's conns: the epoll events' data
	gen   int32 // counts its sockets, so that a closed one's events are ignored
	fd    int   // -1: not connected
	addr  string
	rec   *runners.Recorder
	rnd   *rand.Rand
	reply *replyReader
	// The request out: its index (-1: idle), due, send and deadline times, the
	// bytes not yet written, whether it went on a reused connection and
	// whether it was retried.
	req                 int
	due, sent, deadline time.Time
	pending             []byte
	connecting          bool
	reused, retried     bool
}

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

// closeFD closes c's socket, which leaves its loop's epoll with it.
func (c *evConn) closeFD() {
	if c.fd >= 0 {
		unix.Close(c.fd)
		c.fd = -1
	}
	c.connecting = false
}
