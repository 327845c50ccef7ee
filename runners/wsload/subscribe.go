package wsload

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/sse"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// Reconnect backoff clamps, as runner sse's.
const (
	BackoffMin = sse.BackoffMin
	BackoffMax = sse.BackoffMax
)

// subRunner is a runner of `subscribe:`: it holds the step's subscribers
// itself (a Driver). Each received message is an operation: its latency
// is its lag when the payload carries its send time (a JSON "ts" field in
// unix milliseconds, or a payload that is nothing but one), else the gap
// since the subscriber's previous message (or its connect).
type subRunner struct {
	*runner
	send       []*tmpl.Template
	rampN      int
	rampEvery  time.Duration
	backoffMin time.Duration // tests shorten the clamps
	backoffMax time.Duration
}

var (
	_ runners.Runner = (*subRunner)(nil)
	_ runners.Driver = (*subRunner)(nil)
)

func newSubRunner(r *runner) (*subRunner, error) {
	s := &subRunner{runner: r, backoffMin: BackoffMin, backoffMax: BackoffMax}
	s.rampN, s.rampEvery, _ = sse.ParseRamp(r.spec.Subscribe.Ramp) // validated
	for i, src := range r.spec.Subscribe.Send {
		t, err := r.group.Template(plan.Pos{}, fmt.Sprintf("subscribe.send[%d]", i), src)
		if err != nil {
			return nil, err
		}
		s.send = append(s.send, t)
	}
	return s, nil
}

// NewWorker is not used: the runner drives itself.
func (r *subRunner) NewWorker(int, *runners.Recorder) (runners.Worker, error) {
	return nil, errNoDriver
}

// Drive holds the step's subscribers until ctx ends, ramped as the plan
// says, then closes them all before it returns; it returns early when
// every subscriber has gone (connections lost and reconnect off).
func (r *subRunner) Drive(ctx context.Context, env *runners.StepEnv) error {
	total, _ := runners.SubscriberUnits(env.Params, r.spec.Subscribe.Subscribers, "", env.Load)
	n := int(env.Shard.Split(int64(total))) // the plan's count is the whole run's
	r.mu.Lock()
	timeout, step := r.timeout, r.step
	r.mu.Unlock()
	d := &drive{r: r, env: env, timeout: timeout, step: step}
	sse.HoldRamped(ctx, n, env.Shard, r.rampN, r.rampEvery, env.Gate(), func(i int) { d.subscriber(ctx, i) })
	return nil
}

// drive is one step's run of subscribers.
type drive struct {
	r         *subRunner
	env       *runners.StepEnv
	timeout   time.Duration
	step      []string
	mu        sync.Mutex // orders SetUnits calls
	connected int
}

// pause sleeps for wait, then holds while the step is paused. It reports
// false when ctx ended first.
func (d *drive) pause(ctx context.Context, wait time.Duration) bool {
	return sse.Pause(ctx, d.env.Gate(), wait)
}

// move moves the connected-subscriber and in-flight figures.
func (d *drive) move(delta int) {
	d.env.AddInFlight(delta)
	d.mu.Lock()
	d.connected += delta
	d.env.SetUnits(d.connected)
	d.mu.Unlock()
}

// subscriber holds one connection, reconnecting after it is lost when
// asked to.
func (d *drive) subscriber(ctx context.Context, i int) {
	s := &subscriber{d: d, n: i, rec: d.env.Recorder(i), st: tmpl.NewState(d.r.data, d.r.seq)}
	s.st.SetStep(d.step)
	attempt := 0
	for {
		if s.connect(ctx) > 0 {
			attempt = 0
		}
		if ctx.Err() != nil || !d.r.spec.Subscribe.Reconnect {
			return
		}
		wait := sse.Backoff(attempt, d.r.backoffMin, d.r.backoffMax)
		attempt++
		s.rec.Extra(ExtraBackoff, wait)
		if !d.pause(ctx, wait) {
			return
		}
	}
}

// subscriber is one held connection's state, kept across reconnects.
type subscriber struct {
	d      *drive
	n      int // the subscriber's number: its connection's source address
	rec    *runners.Recorder
	st     *tmpl.State
	buf    []byte
	in     []byte
	opened bool // a connection was open once: the next open is a reconnect
}

// connect opens the connection, sends the subscription messages and
// reads until the connection or the step ends; it returns the messages
// received. A failed connect, and a connection lost while the step runs,
// is an errored operation.
func (s *subscriber) connect(ctx context.Context) int {
	start := time.Now()
	if !s.st.Next() {
		return 0 // the data's unique rows ran out
	}
	cctx, cancel := context.WithTimeout(ctx, s.d.timeout)
	c, err := s.open(cctx)
	cancel()
	if err != nil {
		s.failed(ctx, start, err)
		return 0
	}
	defer func() { _ = c.CloseNow() }()
	s.rec.Extra(ExtraConnect, time.Since(start))
	s.rec.Count(CounterConnects, 1)
	if s.opened {
		s.rec.Count(CounterReconnects, 1)
	}
	s.opened = true
	s.d.move(1)
	defer s.d.move(-1)
	n, err := s.read(ctx, c)
	if ctx.Err() == nil {
		s.rec.Count(CounterDisconnects, 1)
		s.failed(ctx, time.Now(), err)
	}
	return n
}

// open dials and sends the subscription messages.
func (s *subscriber) open(ctx context.Context) (*websocket.Conn, error) {
	c, buf, err := s.d.r.d.dial(ctx, s.n, s.st, s.buf)
	s.buf = buf
	if err != nil {
		return nil, err
	}
	for _, t := range s.d.r.send {
		s.buf = t.Append(s.buf[:0], s.st)
		if err := c.Write(ctx, websocket.MessageText, s.buf); err != nil {
			_ = c.CloseNow()
			return nil, err
		}
		s.rec.Count(CounterMessagesOut, 1)
		s.rec.Count(CounterBytesOut, int64(len(s.buf)))
	}
	return c, nil
}

// read records each message until the connection or ctx ends.
func (s *subscriber) read(ctx context.Context, c *websocket.Conn) (int, error) {
	last, n := time.Now(), 0
	for {
		var err error
		if s.in, err = readMessage(ctx, c, s.in); err != nil {
			return n, err
		}
		now := time.Now()
		lag, ok := sse.SentAt(s.in, s.in, now)
		if !ok {
			lag = now.Sub(last)
		}
		last, n = now, n+1
		if s.paused() {
			continue
		}
		s.rec.Count(CounterMessagesIn, 1)
		s.rec.Count(CounterBytesIn, int64(len(s.in)))
		s.rec.Observe(lag, lag, "")
	}
}

// failed records a failed connect (or a lost connection) that began at
// start; one cut by the step's end is not the server's doing.
func (s *subscriber) failed(ctx context.Context, start time.Time, err error) {
	if ctx.Err() != nil || s.paused() {
		return
	}
	el := time.Since(start)
	s.rec.Record(start, start, start.Add(el), runners.Outcome{Err: classify(ctx, err), Detail: detail(err)})
}

// paused reports whether the step is paused: nothing is recorded then.
func (s *subscriber) paused() bool {
	g := s.d.env.Gate()
	return g != nil && g.Paused()
}
