package redisload

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/sse"
)

// ExtraSubscribe is the extra timing of a subscriber's SUBSCRIBE, from its
// send to the server's confirmation.
const ExtraSubscribe = "subscribe"

// subRunner is a runner of `subscribe:`: it holds the step's subscribers
// itself (a Driver). Each received message is an operation: its latency
// is its lag when the payload carries its send time (a JSON "ts" field in
// unix milliseconds, or a payload that is nothing but one), else the gap
// since the subscriber's previous message; each is counted as messages.
type subRunner struct{ *runner }

var (
	_ runners.Runner = (*subRunner)(nil)
	_ runners.Driver = (*subRunner)(nil)
)

// NewWorker is not used: the runner drives itself.
func (r *subRunner) NewWorker(int, *runners.Recorder) (runners.Worker, error) {
	return nil, errors.New("a redis subscribe group is a Driver: it has no workers")
}

// Drive holds the step's subscribers until ctx ends, each on a connection
// of its own, then closes them all before it returns.
func (r *subRunner) Drive(ctx context.Context, env *runners.StepEnv) error {
	n := int(env.Shard.Split(int64(runners.SweptSubscribers(env.Params, r.spec.Subscribe.Subscribers))))
	if n == 0 {
		n = max(env.Load.Concurrency, 1)
	}
	r.mu.Lock()
	client, timeout := r.client, r.timeout
	r.mu.Unlock()
	if client == nil {
		return errors.New("redis runner used before Prepare")
	}
	env.SetUnits(n)
	var wg sync.WaitGroup
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		s := &subscriber{r: r, client: client, timeout: timeout, rec: env.Recorder(i), env: env}
		wg.Go(func() { s.run(ctx) })
	}
	wg.Wait()
	return nil
}

// subscriber is one held subscription.
type subscriber struct {
	r       *subRunner
	client  rueidis.Client
	timeout time.Duration
	rec     *runners.Recorder
	env     *runners.StepEnv
	last    time.Time // when the previous message (or the subscription) came
}

// run subscribes and receives until ctx ends or the connection is lost
// (an errored operation of kind closed).
func (s *subscriber) run(ctx context.Context) {
	dc, release := s.client.Dedicate()
	defer release()
	start := time.Now()
	s.last = start // the hooks' from now on
	lost := dc.SetPubSubHooks(rueidis.PubSubHooks{OnMessage: s.message})
	if err := s.subscribe(ctx, dc); err != nil {
		kind := classify(ctx, err)
		if ctx.Err() != nil {
			kind = runners.KindCanceled
		}
		s.rec.Record(start, start, time.Now(), runners.Outcome{Err: kind, Detail: detail(err)})
		dc.Close()
		return
	}
	s.rec.Extra(ExtraSubscribe, time.Since(start))
	s.env.AddInFlight(1)
	defer s.env.AddInFlight(-1)
	select {
	case <-ctx.Done():
	case err := <-lost:
		if err != nil && ctx.Err() == nil {
			now := time.Now()
			s.rec.Record(now, now, now, runners.Outcome{Err: classify(ctx, err), Detail: detail(err)})
		}
	}
	dc.Close()
	<-lost // the hooks have run their last
}

// subscribe sends SUBSCRIBE and PSUBSCRIBE and waits for their
// confirmation.
func (s *subscriber) subscribe(ctx context.Context, dc rueidis.DedicatedClient) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	sub := s.r.spec.Subscribe
	var cmds []rueidis.Completed
	if len(sub.Channels) > 0 {
		cmds = append(cmds, dc.B().Subscribe().Channel(sub.Channels...).Build())
	}
	if len(sub.Patterns) > 0 {
		cmds = append(cmds, dc.B().Psubscribe().Pattern(sub.Patterns...).Build())
	}
	for _, res := range dc.DoMulti(ctx, cmds...) {
		if err := res.Error(); err != nil {
			return err
		}
	}
	return nil
}

// message records one received message. The hooks of a connection run in
// one goroutine, one message at a time.
func (s *subscriber) message(m rueidis.PubSubMessage) {
	now := time.Now()
	lag, ok := sse.SentAt([]byte(m.Message), []byte(m.Message), now)
	if !ok {
		lag = now.Sub(s.last)
	}
	s.last = now
	s.rec.Observe(lag, lag, "")
	s.rec.Count(CounterMessages, 1)
}
