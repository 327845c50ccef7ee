//go:build linux

package evloop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/loop"
)

// Supported says whether the epoll clients run here: Linux only.
const Supported = true

// Handler is a protocol's side of one loop: its connections, numbered as
// the loop's (AddConn), their requests and their replies.
type Handler interface {
	// Start puts connection conn's next request, due at due, on its way
	// (queued, MarkDirty, or waiting for a connection); the loop has
	// counted it out. Each request ends in the loop's Done.
	Start(conn int, due, now time.Time)
	// Write writes what connection conn has queued: the loop calls it
	// once per pass for each connection marked with MarkDirty, so that
	// what a pass queued on a connection goes in one write.
	Write(conn int, now time.Time)
	// Event handles an epoll event of one of the handler's sockets
	// (ev.Fd and ev.Pad as given to Register).
	Event(ev unix.EpollEvent, now time.Time)
	// Woken is called when the loop was woken by Wake (another goroutine
	// has something for the handler, or the load ended).
	Woken(now time.Time)
	// Expire ends the requests past their deadline, or every request out
	// when all is set (the grace for them ended).
	Expire(now time.Time, all bool)
	// Close closes the handler's sockets; the loop is done.
	Close()
}

// Loop is one event loop: its epoll instance, an eventfd that wakes it,
// and the slots of its connections (a request out each, or up to a
// pipeline's depth).
type Loop struct {
	env    *runners.StepEnv
	h      Handler
	epfd   int
	wakefd int
	events []unix.EpollEvent
	recs   []*runners.Recorder // per connection
	ready  []int               // a connection per free slot, to send its next request
	dirty  []int               // connections with bytes queued to write, each once
	marked []bool              // per connection: in dirty
	again  []unix.EpollEvent   // read events handed back for the next pass (readAgain)
	busy   int                 // requests out
	// stopping: the load ended, nothing more is sent; paused: the step's
	// gate is closed, read once per wake-up.
	stopping, paused bool
	scanEvery        time.Duration // how often requests' deadlines are checked
	scanned          time.Time
	// sched is the loop's share of an open loop's arrivals, nil for a
	// closed loop, and next its next arrival not yet sent or dropped.
	// noPwait2: the kernel has no epoll_pwait2.
	sched    *loop.Schedule
	next     int64
	noPwait2 bool
	// wakeMu guards the eventfd against a wake-up (from a context's
	// AfterFunc, or a handler's goroutine) racing the loop's close.
	wakeMu sync.Mutex
}

// wakeData marks the eventfd's events; a handler's carry its own data.
const wakeData = -1

// Drive runs a step's load on loops, one per GOMAXPROCS (at most one per
// worker), with one P more than them while they run (reserveP):
// newHandler makes the handler of each loop, add gives it worker
// id's connection (one per worker of the load, dealt round the loops). It
// returns when ctx has ended and the requests out have finished, or when
// env.Ops (the grace for them) ends. scanEvery is how often deadlines are
// checked.
func Drive[H Handler](ctx context.Context, env *runners.StepEnv, scanEvery time.Duration,
	newHandler func(*Loop) (H, error), add func(h H, id int)) error {
	// The step's clock started when Drive was called: an open loop's
	// arrival 0 is due then, however long the loops take to set up.
	start, paused := time.Now(), env.Gate().PausedTotal()
	ops := env.Ops
	if ops == nil {
		ops = ctx
	}
	n := max(env.Load.Workers(), 1)
	env.SetUnits(n)
	procs, release := reserveP()
	defer release()
	loops := make([]*Loop, min(procs, n))
	handlers := make([]H, len(loops))
	for i := range loops {
		l, err := newLoop(env, scanEvery)
		if err != nil {
			closeLoops(loops)
			return err
		}
		loops[i] = l
		if handlers[i], err = newHandler(l); err != nil {
			closeLoops(loops)
			return err
		}
		l.h = handlers[i]
	}
	for id := range n {
		// A stop while an absurd concurrency is being set up ends it.
		if err := ctx.Err(); err != nil {
			closeLoops(loops)
			return fmt.Errorf("setting up connections: stopped after %d of %d: %w", id, n, err)
		}
		add(handlers[id%len(loops)], id)
	}
	if env.Load.OpenLoop() {
		for i, l := range loops {
			// The step's arrival g is loop g mod len(loops)'s.
			stripe := runners.Shard{Index: i, Count: len(loops)}
			s := loop.ScheduleOf(env.Load)
			s.Start, s.Stripe, s.PausedBefore = start, stripe, paused
			l.sched = &s
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

func closeLoops(loops []*Loop) {
	for _, l := range loops {
		if l != nil {
			l.close()
		}
	}
}

func newLoop(env *runners.StepEnv, scanEvery time.Duration) (*Loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	wakefd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	l := &Loop{env: env, epfd: epfd, wakefd: wakefd, scanEvery: scanEvery, events: make([]unix.EpollEvent, 1)}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeData}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wakefd, &ev); err != nil {
		l.close()
		return nil, fmt.Errorf("epoll: %w", err)
	}
	return l, nil
}

// AddConn adds a connection, worker id's, with slots requests out at a
// time, and returns its number in the loop.
func (l *Loop) AddConn(id, slots int) int {
	conn := len(l.recs)
	l.recs = append(l.recs, l.env.Recorder(id))
	l.marked = append(l.marked, false)
	for range slots {
		l.ready = append(l.ready, conn)
	}
	l.events = append(l.events, unix.EpollEvent{})
	return conn
}

// Recorder is connection conn's recorder (its worker's).
func (l *Loop) Recorder(conn int) *runners.Recorder { return l.recs[conn] }

// Register adds socket fd to the loop, edge triggered for reads and
// writes (a write's edge comes only after one found the socket's buffer
// full, so no epoll_ctl per request); its events carry data and gen as
// Fd and Pad. A socket leaves the loop when it is closed.
func (l *Loop) Register(fd int, data, gen int32) error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: data, Pad: gen}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return fmt.Errorf("epoll: %w", err)
	}
	return nil
}

// MarkDirty says connection conn has bytes queued: the handler's Write
// writes them before the loop next waits.
func (l *Loop) MarkDirty(conn int) {
	if !l.marked[conn] {
		l.marked[conn] = true
		l.dirty = append(l.dirty, conn)
	}
}

// writeDirty has the handler write each connection marked since the
// last pass.
func (l *Loop) writeDirty(now time.Time) {
	for _, conn := range l.dirty {
		l.marked[conn] = false
		l.h.Write(conn, now)
	}
	l.dirty = l.dirty[:0]
}

// MaxReads bounds the reads of one socket per event (Ready): at 16 KiB
// each, 1 MiB. A socket still full after them is handed back to the loop
// (readAgain), so that a server that floods one connection
// cannot keep the loop from the others, their deadlines and the end of
// the step.
const MaxReads = 64

// readAgain hands a read event of socket s back to the loop, for its
// next pass, without a wait: its reads stopped before it was drained
// (MaxReads), and an edge-triggered socket says readable only once;
// closed are its events of a close (closedEvents), which go on with it.
func (l *Loop) readAgain(s *Socket, closed uint32) {
	l.again = append(l.again, unix.EpollEvent{Events: unix.EPOLLIN | closed, Fd: s.Index, Pad: s.Gen})
}

// replay hands the events given back since the last pass to the handler.
func (l *Loop) replay(now time.Time) {
	again := l.again
	l.again = nil
	for _, ev := range again {
		l.h.Event(ev, now)
	}
}

// Done ends one request out on connection conn, and frees its slot for
// the next.
func (l *Loop) Done(conn int) {
	l.env.AddInFlight(-1)
	l.busy--
	l.ready = append(l.ready, conn)
}

// Wake makes the loop's epoll_wait return, and the handler's Woken run;
// any goroutine may call it.
func (l *Loop) Wake() {
	l.wakeMu.Lock()
	defer l.wakeMu.Unlock()
	if l.wakefd >= 0 {
		one := [8]byte{1}
		unix.Write(l.wakefd, one[:])
	}
}

// close closes the handler's sockets, the epoll instance and the eventfd.
func (l *Loop) close() {
	if l.h != nil {
		l.h.Close()
	}
	l.wakeMu.Lock()
	defer l.wakeMu.Unlock()
	if l.epfd >= 0 {
		unix.Close(l.epfd)
		unix.Close(l.wakefd)
		l.epfd, l.wakefd = -1, -1
	}
}

// run is the loop: it starts the free slots' requests, waits for events,
// and reads each wake-up's clock once, which is the end of every reply
// the handler completes and the due time of the requests sent after them.
func (l *Loop) run(loadCtx, opCtx context.Context) error {
	defer context.AfterFunc(loadCtx, l.Wake)()
	defer context.AfterFunc(opCtx, l.Wake)()
	now := time.Now()
	l.scanned = now
	for {
		if !l.stopping && loadCtx.Err() != nil {
			l.stopping = true
			l.dropUnsent(now)
		}
		if opCtx.Err() != nil {
			l.h.Expire(now, true)
			return nil
		}
		l.paused = l.env.Gate().Paused()
		if l.sched != nil {
			l.arrivals(now)
		} else {
			l.startReady(now)
		}
		l.writeDirty(now)
		if l.stopping && l.busy == 0 {
			return nil
		}
		n, err := l.epollWait(l.waitFor(now))
		now = time.Now()
		if err != nil {
			return fmt.Errorf("epoll_wait: %w", err)
		}
		for _, ev := range l.events[:max(n, 0)] {
			if ev.Fd == wakeData {
				var b [8]byte
				unix.Read(l.wakefd, b[:])
				l.h.Woken(now)
				continue
			}
			l.h.Event(ev, now)
		}
		l.replay(now)
		if now.Sub(l.scanned) >= l.scanEvery {
			l.h.Expire(now, false)
			l.scanned = now
		}
	}
}

// waitFor is how long epoll_wait may block (-1: until an event): not at
// all with events handed back; in a closed loop not at all with requests
// to send; in an open loop until
// the next arrival; and no longer than the next deadline check with
// requests out or a pause to watch.
func (l *Loop) waitFor(now time.Time) time.Duration {
	if len(l.again) > 0 {
		return 0
	}
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

// start counts a request out on conn and hands it to the handler.
func (l *Loop) start(conn int, due, now time.Time) {
	l.busy++
	l.env.AddInFlight(1)
	l.h.Start(conn, due, now)
}

// startReady sends a request on every free slot, unless the load has
// ended or is paused.
func (l *Loop) startReady(now time.Time) {
	if l.stopping || l.paused {
		return
	}
	ready := l.ready
	l.ready = l.ready[len(l.ready):]
	for _, conn := range ready {
		l.start(conn, now, now)
	}
	if len(l.ready) == 0 {
		l.ready = ready[:0] // reuse the array
	}
}

// startsPerPass bounds the arrivals a loop starts per pass: at a rate
// beyond what it can send, with slots to spare, one pass would otherwise
// start (and connect) tens of thousands, and the loop would see its
// sockets' events, the deadlines and the end of the load only after
// them. The arrivals left are due at once: the next pass does not wait.
const startsPerPass = 256

// arrivals sends the arrivals due by now on free slots, each measured
// from its due time, at most startsPerPass of them; those that find every
// slot busy, or that it reaches more than loop.DropAfter late, are
// dropped and counted, as the open loop does (loop.Open).
func (l *Loop) arrivals(now time.Time) {
	if l.stopping || l.paused {
		return
	}
	s := l.sched
	s.Paused(l.env.Gate().PausedTotal())
	if stale := s.LastDue(loop.DropLine(now), l.next); stale >= l.next {
		l.env.Recorder(0).Drop(stale - l.next + 1) // the loop fell too far behind
		l.next = stale + 1
	}
	due := s.LastDue(now, l.next)
	last := min(due, l.next+startsPerPass-1)
	for ; l.next <= last; l.next++ {
		if len(l.ready) == 0 {
			l.env.Recorder(0).Drop(due - l.next + 1)
			l.next = due + 1
			return
		}
		conn := l.ready[len(l.ready)-1]
		l.ready = l.ready[:len(l.ready)-1]
		due := s.Due(l.next)
		if loop.Late(due, now) {
			l.recs[conn].Count(loop.CounterLate, 1)
		}
		l.start(conn, due, now)
	}
}

// dropUnsent counts the open loop's arrivals due before the load was told
// to stop (the gate's End, else now) that it had not reached, those since
// its last wake-up, as dropped: every arrival due in the step is sent or
// dropped, as with the open loop's dispatcher.
func (l *Loop) dropUnsent(now time.Time) {
	s := l.sched
	if s == nil {
		return
	}
	end := l.env.Gate().Ended()
	if end.IsZero() {
		end = now
	}
	s.Paused(l.env.Gate().PausedTotal())
	if last := s.LastDue(end, l.next); last >= l.next {
		l.env.Recorder(0).Drop(last - l.next + 1)
		l.next = last + 1
	}
}

// untilNext is how long until the loop's next arrival is due.
func (l *Loop) untilNext(now time.Time) time.Duration {
	return max(l.sched.Due(l.next).Sub(now), 0)
}
