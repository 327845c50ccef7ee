package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/loop"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/probe"
	"github.com/benchtui/benchtui/runners/watch"
)

// stepRun is one step being run: its clock, its controls and its tally.
type stepRun struct {
	s      *Session
	runner runners.Runner
	index  int
	spec   plan.Step
	env    *runners.StepEnv

	mu        sync.Mutex
	phase     Phase
	phaseAt   time.Time     // when the current phase's clock started
	planned   time.Duration // of the current phase, extensions included
	extended  time.Duration // by the soak policy and the operator
	pausedAt  time.Time     // zero while running
	pausedIn  time.Duration // paused time within the current phase
	pausedAll time.Duration // paused time within the measured phase
	stopped   bool
	measuring bool      // the measured phase has begun
	drainAt   time.Time // when the load was told to stop
	// inFlightEnd is what was in flight when the measured window closed,
	// before the drain; nil until it closes.
	inFlightEnd *artifacts.InFlight
	stopCh      chan struct{}
	events      []artifacts.Event
	probes      *probe.Set  // the group's probes, read in the measured phase (probes.go)
	server      serverState // the target's log counts and heap profiles (server.go)

	tally   *tally
	watched watchState
	workers []runners.Worker  // the engine's loop's, closed after the drain
	found   []artifacts.Check // the runner's and the hooks' checks
	failed  []artifacts.Check // what went wrong in the step itself (a panic, the target's exit)
	acts    *actor            // the group's actions, from the measured phase on (actions.go)
	cut     bool              // stopped before its time (not a Driver done)
	// run1 and runs say which run of a repeated step this is (1 of 1
	// without repeat).
	run1, runs int
}

func newStepRun(s *Session, r runners.Runner, i int, spec plan.Step) *stepRun {
	spec = shardStep(s.opts.Shard, spec)
	st := &stepRun{s: s, runner: r, index: i, spec: spec, stopCh: make(chan struct{}), phase: PhasePrepare, run1: 1, runs: 1}
	workers := spec.Load.Workers()
	if _, driver := r.(runners.Driver); driver {
		workers = math.MaxInt32 // a Driver's goroutines are its own: shard fully
	}
	st.env = runners.NewStepEnv(s.group, spec.Load, runners.RecorderCount(workers))
	st.env.Index, st.env.Label, st.env.Params, st.env.Vars = i, spec.Label, spec.Params, spec.Vars
	st.env.Target = s.opts.Target
	st.env.Shard = s.opts.Shard
	st.env.SetRequestSink(s.opts.Requests)
	st.env.OnEvent = st.event
	st.env.OnPanic = st.panicked
	st.env.OnWatch = func(name string, t runners.TargetHandle) { s.watchLate(name, watch.NewTreeSampler(t.PID()), t) }
	st.tally = newTally(st.env.Recorders, s.group.Block.D(), func(d string) string { return errorSample(s.plan.Redact, d) })
	if s.opts.Shard.Active() {
		st.tally.blocks.kept = &artifacts.BlockData{} // merge rebuilds the samples from them
		st.tally.liveHist = true                      // and the live view merges these
	}
	st.tally.copyLatency = observesLatency(s.opts.Observer)
	st.watched.initOthers(s.opts.Others)
	return st
}

// activeLocked is the unpaused time spent in the current phase.
func (st *stepRun) activeLocked(now time.Time) time.Duration {
	d := now.Sub(st.phaseAt) - st.pausedIn
	if !st.pausedAt.IsZero() {
		d -= now.Sub(st.pausedAt)
	}
	return max(d, 0)
}

func (st *stepRun) startPhase(p Phase, planned time.Duration) {
	st.mu.Lock()
	now := time.Now()
	if p == PhaseMeasure && !st.pausedAt.IsZero() {
		// A pause spanning the switch counts from here on.
		st.pausedAt = now
	}
	st.phase, st.phaseAt, st.planned, st.pausedIn = p, now, planned, 0
	st.measuring = st.measuring || p == PhaseMeasure
	st.mu.Unlock()
}

func (st *stepRun) event(kind, note string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.eventLocked(kind, note)
}

func (st *stepRun) eventLocked(kind, note string) {
	st.eventAtLocked(kind, note, time.Now())
}

// eventAt records an event that happened at at, however late it is
// handled (a target's exit that a starved clock saw late).
func (st *stepRun) eventAt(kind, note string, at time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.eventAtLocked(kind, note, at)
}

// eventAtLocked is eventAt with st.mu held. Its time is the active time
// at at: the active time now less the wall time since (a pause between
// is not told apart).
func (st *stepRun) eventAtLocked(kind, note string, at time.Time) {
	t := 0.0
	if st.phase == PhaseMeasure || st.phase == PhaseDrain {
		now := time.Now()
		t = max(st.activeLocked(now)-max(now.Sub(at), 0), 0).Seconds()
	}
	st.events = append(st.events, artifacts.Event{T: round3(t), Kind: kind, Note: st.s.plan.Redact(note)})
}

// exitedAt is when t's exit was seen, now when t cannot tell.
func exitedAt(t runners.TargetHandle) time.Time {
	if x, ok := t.(interface{ ExitedAt() time.Time }); ok {
		if at := x.ExitedAt(); !at.IsZero() {
			return at
		}
	}
	return time.Now()
}

// panicked fails the step on a runner's panic, which Contain stopped: a
// note says what and where, the step stops (its figures kept), and a
// failed "panic" check makes the run's exit code say so.
func (st *stepRun) panicked(v any, site string) {
	st.mu.Lock()
	first := !slices.ContainsFunc(st.failed, func(c artifacts.Check) bool { return c.Name == "panic" })
	if first {
		what := fmt.Sprintf("%v in %s", v, site)
		st.eventLocked(artifacts.EventNote, "runner panicked: "+what)
		st.failed = append(st.failed, artifacts.Check{Name: "panic", OK: false, Note: what})
	}
	st.mu.Unlock()
	if first {
		st.finishEarly()
	}
}

func (st *stepRun) pause() bool {
	if !st.env.Gate().Pause() {
		return false
	}
	st.mu.Lock()
	st.pausedAt = time.Now()
	st.eventLocked(artifacts.EventPaused, "")
	st.mu.Unlock()
	return true
}

func (st *stepRun) resume() bool {
	st.mu.Lock()
	if st.pausedAt.IsZero() {
		st.mu.Unlock()
		return false
	}
	d := time.Since(st.pausedAt)
	st.pausedIn += d
	if st.phase == PhaseMeasure {
		st.pausedAll += d
	}
	st.pausedAt = time.Time{}
	st.eventLocked(artifacts.EventResumed, fmt.Sprintf("after %.1fs", d.Seconds()))
	st.mu.Unlock()
	st.env.Gate().Resume()
	return true
}

func (st *stepRun) extend(d time.Duration, why string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stopped || st.phase != PhaseMeasure || d <= 0 {
		return false
	}
	st.planned += d
	st.extended += d
	if why == "" {
		why = "by the operator"
	}
	st.eventLocked(artifacts.EventExtended, fmt.Sprintf("+%s %s", d, why))
	return true
}

func (st *stepRun) stop(why string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stopped {
		return
	}
	st.stopped, st.cut = true, true
	if st.phase == PhaseMeasure || st.phase == PhaseWarmup {
		if why == "" {
			why = "by the operator"
		}
		st.eventLocked(artifacts.EventStopped, why)
	}
	close(st.stopCh)
	st.s.markPartial() // a cut step makes the artifact partial
}

// wasCut reports whether the step was stopped before its time.
func (st *stepRun) wasCut() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.cut
}

// finishEarly ends the step before its planned time without a stopped
// event: a Driver that has done all its work (spawn cycles, say).
func (st *stepRun) finishEarly() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.stopped {
		st.stopped = true
		close(st.stopCh)
	}
}

// run runs the step: prepare, warmup, measure, drain, finish.
func (st *stepRun) run(ctx context.Context) (*artifacts.Step, error) {
	if err := st.runner.Prepare(ctx, st.env); err != nil {
		return nil, fmt.Errorf("group %s step %s: preparing: %w", st.s.group.ID, st.spec.Label, err)
	}
	if failed := st.setup(ctx); len(failed) > 0 {
		return st.setupFailed(failed)
	}
	st.sampleBefore()
	loadCtx, cancelLoad := context.WithCancel(ctx)
	// The gate keeps when the load was told to stop: an open loop that
	// sees it late still counts the arrivals due until then.
	stopLoad := func() { st.env.Gate().End(time.Now()); cancelLoad() }
	defer cancelLoad()
	// A stop while the workers are still being made (an absurd
	// concurrency) must end their making, not wait for it.
	go cancelOnClose(loadCtx, st.stopCh, stopLoad)
	if err := st.makeWorkers(loadCtx); err != nil {
		return nil, err
	}
	if err := st.awaitShardStart(ctx); err != nil {
		return nil, errors.Join(err, loop.CloseWorkers(st.workers))
	}
	opCtx, abortOps := context.WithCancel(context.WithoutCancel(ctx))
	defer abortOps()
	loops := st.startLoad(loadCtx, opCtx)
	st.clock(ctx)
	st.closeInFlight()
	stopLoad()
	st.closeWindow()
	st.setPhase(PhaseDrain)
	st.stopProbes()
	st.stopServer(context.WithoutCancel(ctx))
	st.env.Gate().Resume() // paused workers must see the stop
	st.drain(loops, abortOps)
	st.actions().finish()
	if err := loop.CloseWorkers(st.workers); err != nil {
		st.event(artifacts.EventNote, "closing workers: "+err.Error())
	}
	res := st.result(false)
	st.finish(context.WithoutCancel(ctx), res)
	st.afterTeardown(context.WithoutCancel(ctx), res)
	st.setPhase(PhaseDone)
	st.s.publish(st.snapshot(StateDone))
	return res, nil
}

// cancelOnClose calls cancel when ch closes; it returns when ctx ends.
func cancelOnClose(ctx context.Context, ch <-chan struct{}, cancel context.CancelFunc) {
	select {
	case <-ch:
		cancel()
	case <-ctx.Done():
	}
}

// closeWindow ends the measured window when the load is told to stop: a
// last tick collects what completed inside it, so what completes later,
// in the drain, is counted apart (tally.final).
func (st *stepRun) closeWindow() {
	st.mu.Lock()
	now := time.Now()
	st.drainAt = now
	measuring, active, wall := st.phase == PhaseMeasure, st.activeLocked(now), now.Sub(st.phaseAt)
	st.mu.Unlock()
	st.tally.tick(now, active, measuring, st.env)
	if measuring {
		st.sampleAtEnd(wall)
	}
}

// finish runs the runner's Finish and the step hooks and adds what they
// found to res; a failure of either becomes a failed check or a note, so
// the figures are never lost to it.
func (st *stepRun) finish(ctx context.Context, res *artifacts.Step) {
	sum := runners.Summary{Requests: res.Requests, Errors: res.Errors, ByName: runners.NamedCountsOf(res.ByName), Vars: st.spec.Vars}
	sum.GroupRequests, sum.GroupErrors = st.s.counts()
	sum.GroupRequests += res.Requests
	sum.GroupErrors += res.Errors
	found, err := st.runnerFinish(ctx, sum)
	if err != nil {
		found.Checks = append(found.Checks, artifacts.Check{Name: "finish", OK: false, Note: err.Error()})
	}
	st.mu.Lock()
	found.Checks = append(found.Checks, st.failed...)
	st.mu.Unlock()
	for _, hook := range st.s.hooks {
		checks, err := hook(ctx, st.s.group, sum)
		found.Checks = append(found.Checks, checks...)
		if err != nil {
			res.Events = append(res.Events, artifacts.Event{T: res.DurationS, Kind: artifacts.EventNote, Note: st.s.plan.Redact(err.Error())})
		}
	}
	st.found = addFindings(res, found, st.s.plan.Redact)
}

// runnerFinish calls the runner's Finish; a panic in it is its error, so
// the step's figures are still written.
func (st *stepRun) runnerFinish(ctx context.Context, sum runners.Summary) (found runners.Findings, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v in %s", v, runners.PanicSite())
		}
	}()
	return st.runner.Finish(ctx, st.env, sum)
}

// addFindings copies a runner's findings into a step's result, redacting
// the names and notes of its checks (a database error may echo a secret,
// a verify entry named by its URL may carry one), and
// returns the checks as added.
func addFindings(res *artifacts.Step, f runners.Findings, redact func(string) string) []artifacts.Check {
	checks := make([]artifacts.Check, len(f.Checks))
	for i, c := range f.Checks {
		c.Name, c.Note = redact(c.Name), redact(c.Note)
		checks[i] = c
	}
	res.Checks = append(res.Checks, checks...)
	for k, v := range f.Counters {
		if res.Counters == nil {
			res.Counters = map[string]int64{}
		}
		res.Counters[k] = v // the runner's final count replaces the recorded one
	}
	for k, v := range f.Extra {
		if res.Extra == nil {
			res.Extra = map[string]any{}
		}
		res.Extra[k] = v
	}
	return checks
}

func (st *stepRun) setPhase(p Phase) {
	st.mu.Lock()
	st.phase = p
	st.mu.Unlock()
}

// drain waits for the load goroutines; after the grace period it cancels
// the operations still in flight and waits for them to notice.
func (st *stepRun) drain(loops *sync.WaitGroup, abort context.CancelFunc) {
	done := make(chan struct{})
	go func() { loops.Wait(); close(done) }()
	t := time.NewTimer(st.s.opts.Grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		abort()
		<-done
	}
}

// clock runs the warmup and measured phases, ticking the tally, until the
// step's time is up, it is stopped, or ctx ends.
func (st *stepRun) clock(ctx context.Context) {
	ticker := time.NewTicker(Tick)
	defer ticker.Stop()
	if st.spec.Warmup > 0 {
		st.startPhase(PhaseWarmup, st.spec.Warmup)
		if !st.tickUntilDone(ctx, ticker) {
			return
		}
		st.tally.reset()
	}
	st.startPhase(PhaseMeasure, st.spec.Duration)
	st.env.ResetInFlightPeak()
	st.tally.begin()
	st.startProbes(ctx)
	st.startServer(ctx)
	defer st.startActions(ctx).stopScheduling() // no action starts past the step's end
	st.tickUntilDone(ctx, ticker)
}

// tickUntilDone ticks until the phase's planned time has passed; it
// returns false when the step was stopped or ctx ended.
func (st *stepRun) tickUntilDone(ctx context.Context, ticker *time.Ticker) bool {
	w := st.watchExit()
	for {
		select {
		case <-ctx.Done():
			st.stop("interrupted")
			return false
		case <-st.stopCh:
			return false
		case <-w.exited:
			if w.handle(st) {
				return false
			}
		case <-ticker.C:
		}
		if st.othersExited() {
			return false
		}
		w.follow(st)
		if st.tick() {
			// A starved clock finds the exit and its tick ready at once,
			// and select may take the tick that ends the phase: an exit
			// that came before is still the step's.
			return !w.exitedBefore(st)
		}
	}
}

// exitWatch is the exit of the watched target that tickUntilDone waits
// for: its current process's, until that exit is handled; then the
// process a restart action starts in its place.
type exitWatch struct {
	t       runners.TargetHandle
	name    string
	exited  <-chan struct{} // nil once handled, until a new process replaces it
	handled <-chan struct{}
}

func (st *stepRun) watchExit() *exitWatch {
	t, name := st.exitWatched()
	return &exitWatch{t: t, name: name, exited: exitedOf(t)}
}

// handle records the exit; it reports whether the step stopped.
func (w *exitWatch) handle(st *stepRun) bool {
	w.handled, w.exited = w.exited, nil
	return st.onTargetExitOf(w.t, w.name)
}

// follow watches the process a restart action started, once the last
// one's exit is handled.
func (w *exitWatch) follow(st *stepRun) {
	if t, n := st.exitWatched(); w.exited == nil && exitedOf(t) != w.handled {
		w.t, w.name, w.exited = t, n, exitedOf(t)
	}
}

// exitedBefore handles, without waiting, the exits that came before the
// phase's end: the watched process's and then its successor's (a restart
// starts at most one at a time, so two looks suffice). It reports whether
// the step stopped.
func (w *exitWatch) exitedBefore(st *stepRun) bool {
	for range 2 {
		select {
		case <-w.exited:
		default:
			return false
		}
		if w.handle(st) {
			return true
		}
		w.follow(st)
	}
	return false
}

// exitedOf is closed when t exits; nil for no target.
func exitedOf(t runners.TargetHandle) <-chan struct{} {
	if t == nil {
		return nil
	}
	return t.Exited()
}

// exitWatched is the target whose exit ends the step, and its name: the
// group's target, else one a runner started (WatchTarget), else nil. A
// target a restart action may replace is pinned to its current process,
// so that an exit is judged as the process that exited, however late it
// is handled, not as the one the restart started since.
func (st *stepRun) exitWatched() (runners.TargetHandle, string) {
	if st.env.Target != nil {
		return currentProcess(st.env.Target), st.s.opts.TargetName
	}
	t, name := st.s.lateTarget()
	return currentProcess(t), name
}

// currentProcess is t's current process when t follows restarts, else t.
func currentProcess(t runners.TargetHandle) runners.TargetHandle {
	if f, ok := t.(*Followed); ok {
		return f.Process()
	}
	return t
}

// onTargetExitOf records the exit of t, the process of the group's target
// named name (the first or any other), and, unless the exit was an
// action's or the group says on_target_exit: continue, stops the step and
// the steps after it (they would only measure refusals). It reports
// whether it stopped.
func (st *stepRun) onTargetExitOf(t runners.TargetHandle, name string) bool {
	what := fmt.Sprintf("%s %s", name, t.ExitStatus())
	at := exitedAt(t)
	if st.actions().expectedExit(name, t) {
		st.eventAt(artifacts.EventTargetExited, what+" (by an action)", at)
		return false
	}
	st.eventAt(artifacts.EventTargetExited, what, at)
	if st.s.group.OnTargetExit == "continue" || st.s.kind.TargetExits {
		return false
	}
	// The server under test went away: the run fails, whatever the
	// figures measured before (on_target_exit: continue says it may).
	st.mu.Lock()
	st.failed = append(st.failed, artifacts.Check{Name: "target", OK: false, Note: what + " during the step; the steps after it were not run"})
	st.mu.Unlock()
	st.s.mu.Lock()
	st.s.stopAll = true
	st.s.mu.Unlock()
	st.stop("target exited")
	return true
}

// tick merges the interval, publishes a snapshot and reports whether the
// phase's time is up (after giving the soak policy its say).
func (st *stepRun) tick() bool {
	now := time.Now()
	st.mu.Lock()
	phase, active, planned, wall := st.phase, st.activeLocked(now), st.planned, now.Sub(st.phaseAt)
	st.mu.Unlock()
	st.tally.tick(now, active, phase == PhaseMeasure, st.env)
	// The target lives on the wall clock: a pause stops the load, not its
	// memory, so its samples are timed from the phase's start, pauses
	// included (the load's figures use active time).
	st.sampleTarget(wall, phase == PhaseMeasure)
	snap := st.snapshot(st.state())
	st.s.publish(snap)
	st.actions().onTick(&snap)
	if planned <= 0 || active < planned {
		return false // no planned time: a Driver ends the step itself
	}
	return phase != PhaseMeasure || !(st.soakExtend() || st.soakExtendSeries())
}

func (st *stepRun) state() State {
	if st.env.Gate().Paused() {
		return StatePaused
	}
	return StateRunning
}

// round3 rounds f to three decimals; beyond 1e15 (an absurd rate's
// offered figure) float64 has no decimals to round, and f*1000 would
// overflow the int64.
func round3(f float64) float64 {
	if math.Abs(f) >= 1e15 || math.IsNaN(f) {
		return f
	}
	return float64(int64(f*1000+0.5)) / 1000
}
