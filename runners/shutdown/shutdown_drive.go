package shutdown

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/loop"
)

// Counter names of a shutdown step (artifacts.Step.Counters).
const (
	CounterInFlight       = "in_flight_at_signal"
	CounterCompleted      = "completed_after_signal"
	CounterDropped        = "dropped_in_flight"
	CounterRefused        = "refused_after_signal"
	CounterFailedAfter    = "failed_after_signal"
	CounterFrozen         = "frozen"
	CounterFrozenInFlight = "frozen_in_flight"
)

// refusedBackoff keeps a worker whose connections are refused after the
// signal from spinning.
const refusedBackoff = 5 * time.Millisecond

// killWait bounds the wait for a target killed after its grace.
const killWait = 5 * time.Second

// Result is what a shutdown step measured. A request is in flight
// at the signal when it started before it and ended after it; each such
// request either completed (CompletedAfterSignal) or failed mid-request
// (DroppedInFlight), so InFlightAtSignal is their sum. A request that
// failed to connect after the signal is counted in RefusedAfterSignal,
// never as dropped work, even when it was a retry of one in flight (the
// HTTP clients retry a request once when the server closed its reused
// connection). The frozen batch, on fresh connections, is never retried:
// it is the reliable measure of work a target drops.
type Result struct {
	Signaled                                  bool
	InFlightAtSignal, CompletedAfterSignal    int64
	DroppedInFlight, RefusedAfterSignal       int64
	FailedAfterSignal, Frozen, FrozenInFlight int64
	// TimeToExit runs from the signal to the target's exit (or the kill).
	TimeToExit    time.Duration
	ExitedInGrace bool
	ExitStatus    string
}

func (o Result) counters() map[string]int64 {
	return map[string]int64{
		CounterInFlight: o.InFlightAtSignal, CounterCompleted: o.CompletedAfterSignal,
		CounterDropped: o.DroppedInFlight, CounterRefused: o.RefusedAfterSignal,
		CounterFailedAfter: o.FailedAfterSignal, CounterFrozen: o.Frozen, CounterFrozenInFlight: o.FrozenInFlight,
	}
}

// sdState is a shutdown step in progress: when the signal went, and the
// counts of the requests around it.
type sdState struct {
	base   time.Time
	sigAt  atomic.Int64 // ns after base + 1; 0 until the signal
	counts sync.Map     // name -> *atomic.Int64
}

func (st *sdState) count(rec *runners.Recorder, name string) {
	v, _ := st.counts.LoadOrStore(name, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
	rec.Count(name, 1)
}

func (st *sdState) get(name string) int64 {
	if v, ok := st.counts.Load(name); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

// record returns the loop's Record for the load (frozen false) or the
// frozen batch: it sorts each request by when it ran against the signal.
// A request is timed from when its worker called it, in both.
func (st *sdState) record(frozen bool) func(rec *runners.Recorder, _, t0, t1 time.Time, out runners.Outcome) {
	return func(rec *runners.Recorder, _, t0, t1 time.Time, out runners.Outcome) {
		sig := st.sigAt.Load() - 1
		start, end := int64(t0.Sub(st.base)), int64(t1.Sub(st.base))
		switch {
		case sig < 0 || end < sig: // before the signal: ordinary load
			rec.Done(t0, t0, t1, out.Err)
		case out.Err == "refused":
			st.count(rec, CounterRefused)
		case start < sig: // in flight at the signal
			st.inFlight(rec, t0, t1, out.Err, frozen)
		case out.Err == "":
			rec.Done(t0, t0, t1, "")
		default:
			st.count(rec, CounterFailedAfter)
		}
	}
}

// backoff keeps a worker whose connections are refused after the signal
// from spinning.
func backoff(out runners.Outcome) time.Duration {
	if out.Err == "refused" {
		return refusedBackoff
	}
	return 0
}

// inFlight records a request that was in flight at the signal.
func (st *sdState) inFlight(rec *runners.Recorder, t0, t1 time.Time, kind string, frozen bool) {
	rec.Done(t0, t0, t1, kind)
	st.count(rec, CounterInFlight)
	if frozen {
		st.count(rec, CounterFrozenInFlight)
	}
	if kind != "" {
		st.count(rec, CounterDropped)
		return
	}
	st.count(rec, CounterCompleted)
	rec.Extra("drain", t1.Sub(st.base.Add(time.Duration(st.sigAt.Load()-1))))
}

// Drive runs the load, signals the target at `after`, waits for it to
// exit (killing it after `grace`), stops the load and returns.
func (r *Runner) Drive(ctx context.Context, env *runners.StepEnv) error {
	if env.Target == nil {
		return errors.New("shutdown: the group has no watched target")
	}
	env.SetUnits(env.Load.Concurrency + r.spec.Freeze) // connections held
	st := &sdState{base: time.Now()}
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var workers []runners.Worker // the load's and the frozen batch's
	defer func() { stopLoad(); wg.Wait(); _ = loop.CloseWorkers(workers) }()
	load, err := loop.NewWorkers(ctx, r.load, env, env.Load.Concurrency)
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	workers = load
	loop.Closed(loadCtx, ctx, loop.Loop{Env: env, Workers: load, Record: st.record(false), Backoff: backoff}, &wg)
	var sseDone chan struct{} // closed when the subscribers have all gone
	if r.sse != nil {
		sseDone = make(chan struct{})
		wg.Go(func() { _ = r.sse.Drive(loadCtx, env); close(sseDone) })
	}
	if !runners.SleepUntil(ctx, st.base.Add(r.spec.After.D()-r.spec.FreezeLead.D())) {
		return nil
	}
	frozen, written := r.startFreeze(ctx, env, st, &wg)
	workers = append(workers, frozen...)
	if !r.waitFrozen(ctx, st, written) {
		return nil
	}
	sigAt := time.Now()
	st.sigAt.Store(int64(sigAt.Sub(st.base)) + 1)
	if err := env.Target.Signal(r.sig); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	env.Event(artifacts.EventNote, fmt.Sprintf("%s sent to the target", r.spec.Signal))
	o := r.awaitExit(ctx, env, sigAt)
	awaitStreams(ctx, sseDone)
	stopLoad()
	wg.Wait()
	r.out = st.outcome(o)
	for _, name := range []string{CounterInFlight, CounterCompleted, CounterDropped, CounterRefused, CounterFailedAfter} {
		env.Recorder(0).Count(name, 0) // every counter shows, zeros too
	}
	return nil
}

// sseSettle bounds the wait, after the target's exit, for its event
// streams to be seen ending (subscribers that reconnect never all go).
const sseSettle = 2 * time.Second

// awaitStreams waits until the subscribers have all gone, so each stream's
// end is counted before the load is stopped (a stream still open when the
// load stops is cut by benchtui, and not counted).
func awaitStreams(ctx context.Context, done <-chan struct{}) {
	if done == nil {
		return
	}
	t := time.NewTimer(sseSettle)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
}

func (st *sdState) outcome(o Result) Result {
	o.InFlightAtSignal, o.CompletedAfterSignal = st.get(CounterInFlight), st.get(CounterCompleted)
	o.DroppedInFlight, o.RefusedAfterSignal = st.get(CounterDropped), st.get(CounterRefused)
	o.FailedAfterSignal, o.Frozen, o.FrozenInFlight = st.get(CounterFailedAfter), st.get(CounterFrozen), st.get(CounterFrozenInFlight)
	return o
}

// startFreeze sends the frozen batch, one request per worker of its own;
// the returned channel gets a value as each request is written.
func (r *Runner) startFreeze(ctx context.Context, env *runners.StepEnv, st *sdState, wg *sync.WaitGroup) ([]runners.Worker, <-chan struct{}) {
	written := make(chan struct{}, r.spec.Freeze)
	workers, err := loop.NewWorkers(ctx, r.freeze, env, r.spec.Freeze)
	if err != nil {
		return nil, written // httpload's workers fail only when ctx ends, which waitFrozen sees
	}
	batch := loop.Loop{Env: env, Workers: workers, Record: st.record(true)}
	for i := range workers {
		var once sync.Once
		trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
			once.Do(func() { written <- struct{}{} })
		}}
		st.count(env.Recorder(i), CounterFrozen)
		wg.Go(func() { batch.Once(httptrace.WithClientTrace(ctx, trace), i) })
	}
	return workers, written
}

// waitFrozen waits until `after` has passed and the frozen batch is
// written (and settled), but no longer than freezeWait past `after`.
func (r *Runner) waitFrozen(ctx context.Context, st *sdState, written <-chan struct{}) bool {
	at := st.base.Add(r.spec.After.D())
	limit := time.NewTimer(time.Until(at.Add(freezeWait)))
	defer limit.Stop()
	for range r.spec.Freeze {
		select {
		case <-written:
		case <-limit.C:
			return runners.SleepUntil(ctx, at)
		case <-ctx.Done():
			return false
		}
	}
	if r.spec.Freeze > 0 {
		at = later(at, time.Now().Add(freezeSettle))
	}
	return runners.SleepUntil(ctx, at)
}

// awaitExit waits for the signalled target to exit; after the grace it
// kills it and waits a little more.
func (r *Runner) awaitExit(ctx context.Context, env *runners.StepEnv, sigAt time.Time) Result {
	o := Result{Signaled: true}
	grace := time.NewTimer(r.spec.Grace.D())
	defer grace.Stop()
	select {
	case <-env.Target.Exited():
		o.TimeToExit, o.ExitedInGrace = time.Since(sigAt), true
	case <-grace.C:
		env.Event(artifacts.EventNote, fmt.Sprintf("target still running %s after the signal: killed", r.spec.Grace.D()))
		_ = env.Target.Signal(syscall.SIGKILL)
		kill := time.NewTimer(killWait)
		defer kill.Stop()
		select {
		case <-env.Target.Exited():
		case <-kill.C:
		}
		o.TimeToExit = time.Since(sigAt)
	case <-ctx.Done():
		o.TimeToExit = time.Since(sigAt)
		select {
		case <-env.Target.Exited(): // both were ready: the exit counts
			o.ExitedInGrace = true
		default:
		}
	}
	o.ExitStatus = env.Target.ExitStatus()
	if o.ExitStatus == "" {
		o.ExitStatus = "running"
	}
	return o
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
