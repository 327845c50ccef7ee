package sse

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/httpload"
	"github.com/benchtui/benchtui/runners/plan"
)

// Default reconnect backoff clamps.
const (
	BackoffMin = 500 * time.Millisecond
	BackoffMax = 30 * time.Second
)

// recorder is what subscribers record into; *runners.Recorder is one.
type recorder interface {
	Observe(latency, service time.Duration, errKind string)
	Extra(name string, d time.Duration)
	Count(name string, n int64)
	// Record records a flow's step (sse.flow) under its name.
	Record(due, sent, end time.Time, out runners.Outcome)
}

// host is what a drive needs of its step; stepHost adapts a StepEnv.
type host interface {
	recorder(i int) recorder
	gate() *runners.Gate
	addInFlight(delta int)
	setUnits(n int)
}

type stepHost struct{ env *runners.StepEnv }

func (h stepHost) recorder(i int) recorder { return h.env.Recorder(i) }
func (h stepHost) gate() *runners.Gate     { return h.env.Gate() }
func (h stepHost) addInFlight(d int)       { h.env.AddInFlight(d) }
func (h stepHost) setUnits(n int)          { h.env.SetUnits(n) }

// Runner is the SSE runner of one group.
type Runner struct {
	spec   Spec
	ramp   ramp
	client *client
	before *httpload.Before // the flow each subscriber sends before it connects; nil without one
	step   []string         // the step's values of the group's vars, set by Drive

	// Reconnect backoff clamps; tests shorten them.
	backoffMin, backoffMax time.Duration
}

var (
	_ runners.Runner = (*Runner)(nil)
	_ runners.Driver = (*Runner)(nil)
)

func newKind(g *plan.Group, _ *runners.RunEnv) (runners.Runner, error) {
	s := specOf(g)
	if s == nil {
		return nil, fmt.Errorf("group %s: no sse section", g.ID)
	}
	return newGroupRunner(*s, g)
}

// New builds an SSE runner from its section, whose templates read no data
// file.
func New(s Spec) (*Runner, error) { return newGroupRunner(s, nil) }

// newGroupRunner builds an SSE runner; g (nil: none) gives its data file.
func newGroupRunner(s Spec, g *plan.Group) (*Runner, error) {
	if p := s.problems(); len(p) > 0 {
		return nil, fmt.Errorf("sse section: %s", p[0])
	}
	rp, _ := parseRamp(s.Ramp)
	timeout := defaultTimeout
	if s.Timeout.D() > 0 {
		timeout = s.Timeout.D()
	}
	c, err := newClient(s, timeout)
	if err != nil {
		return nil, err
	}
	r := &Runner{spec: s, ramp: rp, client: c, backoffMin: BackoffMin, backoffMax: BackoffMax}
	var vars []string
	if len(s.Flow) > 0 {
		if r.before, err = httpload.NewBefore(g, s.Flow, s.InsecureSkipVerify, timeout); err != nil {
			return nil, fmt.Errorf("sse section: flow: %w", err)
		}
		vars = r.before.Vars()
	}
	if c.tpl, err = compileTemplates(&s, g, vars); err != nil {
		return nil, fmt.Errorf("sse section: %w", err)
	}
	return r, nil
}

// Prepare does nothing: subscribers connect under the clock.
func (r *Runner) Prepare(context.Context, *runners.StepEnv) error { return nil }

// NewWorker is not used: the runner drives itself.
func (r *Runner) NewWorker(int, *runners.Recorder) (runners.Worker, error) {
	return nil, errors.New("sse runner is a Driver: it has no workers")
}

// Finish closes the idle connections left by the step.
func (r *Runner) Finish(context.Context, *runners.StepEnv, runners.Summary) (runners.Findings, error) {
	r.client.closeIdle()
	return runners.Findings{}, nil
}

// Close releases the transport's connections, and the flow's.
func (r *Runner) Close() error {
	r.client.closeIdle()
	if r.before != nil {
		return r.before.Close()
	}
	return nil
}

// Drive holds the step's subscribers until ctx ends, then closes every
// stream and returns once every goroutine it started has exited. It
// returns early when every subscriber has gone (streams ended and
// reconnect off), which ends the step.
func (r *Runner) Drive(ctx context.Context, env *runners.StepEnv) error {
	n := int(env.Shard.Split(int64(r.spec.subscribers(env.Params)))) // the plan's count is the whole run's
	if n == 0 {
		n = max(env.Load.Concurrency, 1)
	}
	if env.Group != nil {
		r.step = env.StepValues()
	}
	if r.client.tpl != nil {
		r.client.tpl.seq.Stripe(env.Shard.Index, env.Shard.Count)
	}
	d := &drive{r: r, h: stepHost{env}, shard: env.Shard}
	return d.run(ctx, n)
}

// drive is one step's run of n subscribers.
type drive struct {
	r *Runner
	h host
	// shard is this process's part of a distributed run: its subscriber k
	// is the run's subscriber shard.Global(k), and starts in that one's
	// ramp period, so the shards together keep the plan's ramp.
	shard     runners.Shard
	mu        sync.Mutex // orders SetUnits calls
	connected int
}

// drive runs n subscribers on h, ramped as the plan says.
func (r *Runner) drive(ctx context.Context, h host, n int) error {
	return (&drive{r: r, h: h}).run(ctx, n)
}

// rampPeriod is the ramp period (0 first) in which the run's subscriber
// global starts: batch of them start each period; batch 0 starts all at once.
func rampPeriod(global int64, batch int) int64 {
	if batch <= 0 {
		return 0
	}
	return global / int64(batch)
}

func (d *drive) run(ctx context.Context, n int) error {
	defer holdLowGC(n)()
	HoldRamped(ctx, n, d.shard, d.r.ramp.n, d.r.ramp.every, d.h.gate(), func(i int) { d.subscriber(ctx, i) })
	return nil
}

// HoldRamped runs n subscribers, hold(i) each in a goroutine of its own,
// ramped: the run's subscriber shard.Global(i) starts in its ramp period
// (batch of them every period; batch 0 starts all at once), each wait
// held while the step's gate g (nil: none) is paused. It returns once ctx
// has ended or every subscriber has returned (without reconnects every
// one may end before the step does: then there is nothing left to
// measure), and only after all have. Other runners' subscribers
// (websocket) are held so.
func HoldRamped(ctx context.Context, n int, shard runners.Shard, batch int, every time.Duration, g *runners.Gate, hold func(i int)) {
	var wg sync.WaitGroup
	defer wg.Wait()
	var period int64
	for i := range n {
		if ctx.Err() != nil { // an absurd count must not hold up the stop
			return
		}
		p := rampPeriod(shard.Global(int64(i)), batch)
		if p > period && !Pause(ctx, g, time.Duration(p-period)*every) {
			return
		}
		period = p
		wg.Go(func() { hold(i) })
	}
	gone := make(chan struct{})
	go func() { wg.Wait(); close(gone) }()
	select {
	case <-ctx.Done():
	case <-gone:
	}
}

// pause sleeps for wait, then holds while the step is paused. It reports
// false when ctx ended first.
func (d *drive) pause(ctx context.Context, wait time.Duration) bool {
	return Pause(ctx, d.h.gate(), wait)
}

// Pause sleeps for wait, then holds while the step's gate g (nil: none)
// is paused. It reports false when ctx ended first. Other runners'
// subscribers (websocket) wait between ramp batches and reconnects so.
func Pause(ctx context.Context, g *runners.Gate, wait time.Duration) bool {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	}
	if g != nil {
		if _, err := g.Wait(ctx); err != nil {
			return false
		}
	}
	return true
}

// subscriber holds one stream, reconnecting after drops when asked to.
func (d *drive) subscriber(ctx context.Context, i int) {
	rec := d.h.recorder(i)
	st := &stream{d: d, sub: i, rec: rec}
	attempt := 0
	for {
		if st.connect(ctx) > 0 {
			attempt = 0
		}
		if ctx.Err() != nil || !d.r.spec.Reconnect {
			return
		}
		wait := d.r.backoff(attempt)
		attempt++
		rec.Extra("backoff", wait)
		if !d.pause(ctx, wait) {
			return
		}
	}
}

// maxUnanswered bounds how long a connect cut by the step's end must have
// waited for its response headers to count as a timeout.
const maxUnanswered = time.Second

// unanswered is how long a connect cut by the step's end must have waited
// for its headers to count as a timeout: the connect timeout, at most
// maxUnanswered.
func (r *Runner) unanswered() time.Duration { return min(r.client.timeout, maxUnanswered) }

// backoff is the wait before reconnect attempt n (0-based): a uniform draw
// in [0, backoffMin·2ⁿ], the ceiling capped at backoffMax (full jitter).
// The first attempt is drawn too, never raised to a floor: subscribers
// dropped together come back spread over the window, not in one instant.
func (r *Runner) backoff(n int) time.Duration { return Backoff(n, r.backoffMin, r.backoffMax) }

// Backoff is the wait before reconnect attempt n (0-based) of clamps lo
// and hi: a uniform draw in [0, lo·2ⁿ], the ceiling capped at hi (full
// jitter). Other runners' held connections (websocket) back off the same.
func Backoff(n int, lo, hi time.Duration) time.Duration {
	ceil := hi
	if n < 40 && lo<<n < hi && lo<<n > 0 {
		ceil = lo << n
	}
	return time.Duration(rand.Int64N(int64(ceil) + 1))
}

// open and closed move the connected-subscriber and in-flight figures.
func (d *drive) open() { d.move(1) }

func (d *drive) closed() { d.move(-1) }

func (d *drive) move(delta int) {
	d.h.addInFlight(delta)
	d.mu.Lock()
	d.connected += delta
	d.h.setUnits(d.connected)
	d.mu.Unlock()
}
