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
		loops[id%len(loops)].addConn(id, env.Recorder(id), r.pipeline())
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
	ready   []*evConn // a connection per free slot, to send its next request
	dirty   []*evConn // connections with requests queued to write
	busy    int       // requests out
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

// addConn gives the loop the connection of worker id, with slots
// requests out at a time (http.pipeline).
func (l *evLoop) addConn(id int, rec *runners.Recorder, slots int) {
	c := &evConn{index: int32(len(l.conns)), fd: -1, rec: rec, reply: newReplyReader(),
		rnd: rand.New(rand.NewPCG(uint64(id)+1, uint64(time.Now().UnixNano())))}
	l.conns = append(l.conns, c)
	for range slots {
		l.ready = append(l.ready, c)
	}
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
		l.flushDirty(now)
		if l.stopping && l.busy == 0 {
			return nil
		}
		n, err := l.epollWait(l.waitFor(now))
		now = time.Now()
		if err != nil {
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

// startReady sends a request on every free slot, unless
// the load has ended or is paused.
func (l *evLoop) startReady(now time.Time) {
	if l.stopping || l.paused {
		return
	}
	ready := l.ready
	l.ready = l.ready[len(l.ready):]
	for _, c := range ready {
		l.startAt(c, now, now)
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
	if len(c.out) == 0 {
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
	if c.woff < len(c.wbuf) && !l.flush(c, now) {
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
