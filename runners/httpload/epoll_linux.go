//go:build linux

package httpload

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"time"

	"golang.org/x/sys/unix"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/evloop"
)

// epollSupported says whether client: epoll runs here: Linux only.
const epollSupported = evloop.Supported

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
	if env.Shard.Active() { // a safety net: a sharded run's plan check (Kind.Shardable) refuses it first
		return errors.New("client: epoll does not run sharded")
	}
	scanEvery := min(max(r.timeout()/10, time.Millisecond), 100*time.Millisecond)
	newLoop := func(l *evloop.Loop) (*evLoop, error) {
		return &evLoop{Loop: l, r: r.Runner, targets: resolveTargets(r.lean)}, nil
	}
	return evloop.Drive(ctx, env, scanEvery, newLoop, func(l *evLoop, id int) { l.addConn(id, r.pipeline()) })
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

// evLoop is the HTTP side of one event loop: its connections, each a
// socket it dials itself.
type evLoop struct {
	*evloop.Loop
	r       *Runner
	targets map[string]target
	conns   []*evConn
}

var _ evloop.Handler = (*evLoop)(nil)

// addConn gives the loop the connection of worker id, with slots
// requests out at a time (http.pipeline).
func (l *evLoop) addConn(id, slots int) {
	index := l.AddConn(id, slots)
	c := &evConn{Socket: evloop.Socket{Index: int32(index), FD: -1}, l: l, rec: l.Recorder(index), reply: newReplyReader(),
		rnd: rand.New(rand.NewPCG(uint64(id)+1, uint64(time.Now().UnixNano())))}
	l.conns = append(l.conns, c)
}

// Close closes the loop's sockets.
func (l *evLoop) Close() {
	for _, c := range l.conns {
		c.closeFD()
	}
	l.conns = nil
}

// Woken: nothing of the loop's own to do.
func (l *evLoop) Woken(time.Time) {}

// Start puts connection conn's next request, due at due, on the wire.
func (l *evLoop) Start(conn int, due, now time.Time) { l.startAt(l.conns[conn], due, now) }

// Event handles one epoll event of a connection's socket.
func (l *evLoop) Event(ev unix.EpollEvent, now time.Time) {
	c := l.conns[ev.Fd]
	if !c.Current(ev) {
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
	l.Ready(&c.Socket, c, ev, now)
}

// idleEvent: an idle connection is readable: the server closed it (or
// sent what nobody asked for): it is closed, and the next request dials.
func (l *evLoop) idleEvent(c *evConn) {
	if _, err := unix.Read(c.FD, c.reply.Space()); err != unix.EAGAIN {
		c.closeFD()
	}
}

// pipeline is how many requests a connection keeps out.
func (r *Runner) pipeline() int { return max(r.spec.Pipeline, 1) }
