package engine

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/action"
	"github.com/benchtui/benchtui/runners/plan"
)

// actionPoll bounds how long the scheduler sleeps between looks at the
// step's clock: a pause stops that clock, and the schedule moves with it.
const actionPoll = 50 * time.Millisecond

// actor runs a group's actions during one measured phase: each is due at
// an offset of active (unpaused) time, as the open loop's arrivals are, so
// a pause delays them. At most one run of an action is in flight; an
// `every` run that finds the last one still going is skipped and counted.
type actor struct {
	st   *stepRun
	acts []*plan.Action
	// ctx ends the actions' own work (commands, requests) once the step
	// has drained; stopSched ends the scheduling at the measured phase's end.
	ctx       context.Context
	cancel    context.CancelFunc
	stopSched context.CancelFunc
	sched     sync.WaitGroup
	running   sync.WaitGroup
	client    *http.Client

	// when are the actions' conditions (nil for one without when:),
	// read by the clock's goroutine only (onTick).
	when []*condition
	// winOf are the windows each action opens and closes; wins where
	// they lie so far (under mu).
	winOf [][]int

	mu      sync.Mutex
	wins    []windowRun
	busy    []bool
	ran     []int
	skipped []int
	expect  map[string]ending // target name -> the process an action is ending
}

// startActions starts the scheduler of the group's actions for the
// measured phase; nil when the group has none.
func (st *stepRun) startActions(ctx context.Context) *actor {
	acts := st.s.group.Actions
	if len(acts) == 0 {
		return nil
	}
	a := &actor{st: st, acts: acts, busy: make([]bool, len(acts)), ran: make([]int, len(acts)),
		skipped: make([]int, len(acts)), expect: map[string]ending{},
		when: conditions(acts), winOf: windowsOf(st.s.group), wins: make([]windowRun, len(st.s.group.Windows)),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2, IdleConnTimeout: 30 * time.Second}}}
	a.ctx, a.cancel = context.WithCancel(context.WithoutCancel(ctx))
	schedCtx, stop := context.WithCancel(ctx)
	a.stopSched = stop
	st.mu.Lock()
	st.acts = a
	st.mu.Unlock()
	a.sched.Go(func() { a.schedule(schedCtx) })
	return a
}

// actions is the step's actor, nil without actions or before the
// measured phase.
func (st *stepRun) actions() *actor {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.acts
}

// stopScheduling ends the scheduling: no action starts after the measured
// phase. Runs in flight go on until finish.
func (a *actor) stopScheduling() {
	if a == nil {
		return
	}
	a.stopSched()
	a.sched.Wait()
}

// finish cancels the commands, requests and statements still running (a
// restart finishes: it leaves a ready target or none), waits for them,
// and notes the actions that never ran and the runs skipped.
func (a *actor) finish() {
	if a == nil {
		return
	}
	a.stopScheduling()
	a.cancel()
	a.running.Wait()
	a.client.CloseIdleConnections()
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, act := range a.acts {
		label := act.Label(a.st.s.group)
		switch {
		case act.At != nil && a.ran[i] == 0:
			a.st.event(artifacts.EventNote, fmt.Sprintf("action %s at %s not run: past the step's end", label, act.At.D()))
		case a.when[i] != nil && a.ran[i] == 0:
			a.st.event(artifacts.EventNote, a.when[i].neverHeld(label))
		case a.skipped[i] > 0:
			a.st.event(artifacts.EventNote, fmt.Sprintf("action %s: %d runs, %d skipped (the previous run was still going)", label, a.ran[i], a.skipped[i]))
		}
	}
}

// schedule starts each action when the step's active time reaches its
// offset, until ctx ends.
func (a *actor) schedule(ctx context.Context) {
	next := make([]time.Duration, len(a.acts)) // due offsets; -1 when done
	for i, act := range a.acts {
		switch {
		case act.At != nil:
			next[i] = act.At.D()
		case act.Every != nil:
			next[i] = act.Every.D()
		default:
			next[i] = -1 // a condition: the clock's tick starts it (onTick)
		}
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		active := a.st.measuredActive()
		wait := time.Duration(math.MaxInt64)
		for i, act := range a.acts {
			if next[i] < 0 {
				continue
			}
			if next[i] <= active {
				a.launch(i, next[i])
				next[i] = a.following(act, next[i], active)
			}
			if next[i] >= 0 {
				wait = min(wait, next[i]-active)
			}
		}
		if wait == time.Duration(math.MaxInt64) {
			return // every action has run
		}
		timer.Reset(min(wait, actionPoll))
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
	}
}

// following is the offset an action is next due at after one due at due:
// -1 for a one-off; for `every`, the next multiple after active.
func (a *actor) following(act *plan.Action, due, active time.Duration) time.Duration {
	if act.Every == nil {
		return -1
	}
	every := act.Every.D()
	for due <= active {
		due += every
	}
	return due
}

// launch starts run i of an action due at offset due, unless the last run
// is still going.
func (a *actor) launch(i int, due time.Duration) {
	a.mu.Lock()
	if a.busy[i] {
		a.skipped[i]++
		a.mu.Unlock()
		return
	}
	a.busy[i] = true
	a.ran[i]++
	a.mu.Unlock()
	a.running.Go(func() {
		defer func() {
			a.mu.Lock()
			a.busy[i] = false
			a.mu.Unlock()
		}()
		a.run(i, due)
	})
}

// run does run of action i due at offset due, opening and closing the
// windows that follow it, and records its event.
func (a *actor) run(i int, due time.Duration) {
	started := a.st.measuredActive()
	a.actionStarted(i, started)
	defer func() { a.actionEnded(i, a.st.measuredActive()) }()
	a.runAt(a.acts[i], due, started)
}

// runAt does one action and records its event at the step's active time
// started; it returns the result as recorded.
func (a *actor) runAt(act *plan.Action, due, started time.Duration) artifacts.ActionResult {
	g := a.st.s.group
	var res artifacts.ActionResult
	kind := artifacts.EventAction
	switch act.Kind() {
	case plan.ActionSignal:
		res = a.signal(act)
	case plan.ActionRestart:
		res = a.restart(act)
		if res.OK {
			kind = artifacts.EventTargetRestarted
		}
	case plan.ActionExec:
		res = action.Exec(a.ctx, act.Exec, act.TimeoutD())
	case plan.ActionHTTPK:
		res = action.HTTP(a.ctx, a.client, act.HTTPMethod(), act.HTTP, act.TimeoutD())
	case plan.ActionSQL:
		res = a.sql(act)
	}
	res.Name, res.Kind, res.AtS = act.Label(g), act.Kind(), round3(due.Seconds())
	red := a.redacted(res, act)
	a.st.actionEvent(kind, started, red)
	return *red
}

// redacted is res fit to store: the plan's secrets, URL and DSN
// passwords removed from its text.
func (a *actor) redacted(res artifacts.ActionResult, act *plan.Action) *artifacts.ActionResult {
	redact := func(s string) string {
		if act.DSN != "" && act.DSN != plan.EmbeddedDSN {
			s = strings.ReplaceAll(s, act.DSN, plan.RedactURLs(act.DSN))
		}
		return a.st.s.plan.Redact(s)
	}
	res.Name, res.Error, res.Output = redact(res.Name), redact(res.Error), redact(res.Output)
	return &res
}

// signal sends the action's signal to its target. For KILL, TERM and INT
// it waits (up to the timeout) for the target to exit, and that exit is
// the action's doing: it does not stop the step.
func (a *actor) signal(act *plan.Action) artifacts.ActionResult {
	start := time.Now()
	res := artifacts.ActionResult{}
	name := act.TargetOf(a.st.s.group)
	t := a.target(name)
	sig, err := action.Signal(act.Signal)
	switch {
	case err != nil:
		res.Error = err.Error()
	case t == nil:
		res.Error = fmt.Sprintf("target %s is not running", name)
	}
	if res.Error != "" {
		return timed(res, start)
	}
	exited, ending := t.Exited(), action.Ending(act.Signal)
	res.PID = t.PID()
	if ending {
		a.expectExit(name, res.PID, act.TimeoutD())
	}
	if err := t.Signal(sig); err != nil {
		res.Error = err.Error()
		return timed(res, start)
	}
	if !ending {
		res.OK = true
		return timed(res, start)
	}
	timer := time.NewTimer(act.TimeoutD())
	defer timer.Stop()
	select {
	case <-exited:
		res.OK, res.Output = true, "exited: "+t.ExitStatus()
	case <-timer.C:
		res.Error = fmt.Sprintf("still running %s after the signal", act.TimeoutD())
	}
	return timed(res, start)
}

// target is the handle of the named target: the group's own, else the
// run's.
func (a *actor) target(name string) runners.TargetHandle {
	if name == a.st.s.opts.TargetName && a.st.env.Target != nil {
		return a.st.env.Target
	}
	if a.st.s.opts.Targets != nil {
		return a.st.s.opts.Targets.Running(name)
	}
	return nil
}

// restart starts the action's target again; the watcher follows the new
// process. It runs to its end even when the step ends meanwhile (bounded
// by the target's ready timeout), so it leaves a ready target or none.
func (a *actor) restart(act *plan.Action) artifacts.ActionResult {
	start := time.Now()
	res := artifacts.ActionResult{}
	name := act.TargetOf(a.st.s.group)
	targets := a.st.s.opts.Targets
	if targets == nil {
		res.Error = "no run to restart targets in"
		return timed(res, start)
	}
	if t := targets.Running(name); t != nil {
		a.expectExit(name, t.PID(), a.st.s.plan.Targets[name].StopGrace.D()+act.TimeoutD())
	}
	old, cur, err := targets.Restart(context.WithoutCancel(a.ctx), name)
	res.OldPID, res.PID = old, cur
	if err != nil {
		res.Error = err.Error()
	} else {
		res.OK, res.Output = true, fmt.Sprintf("%s: pid %d -> %d, ready", name, old, cur)
	}
	return timed(res, start)
}

// sql runs the action's statement; dsn: embedded is the group's own
// cluster (a postgres runner's).
func (a *actor) sql(act *plan.Action) artifacts.ActionResult {
	dsn := act.DSN
	if dsn == plan.EmbeddedDSN {
		d, ok := a.st.runner.(runners.DSNSource)
		if !ok || d.DSN() == "" {
			return artifacts.ActionResult{Error: "dsn: embedded: the group's runner has no database of its own"}
		}
		dsn = d.DSN()
	}
	return action.SQL(a.ctx, dsn, act.SQL, act.TimeoutD())
}

func timed(res artifacts.ActionResult, start time.Time) artifacts.ActionResult {
	res.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	return res
}

// ending is the process of a target that an action is ending (a signal
// that ends it, a restart's stop), and until when its exit is expected.
type ending struct {
	pid   int
	until time.Time
}

// expectExit makes an exit of process pid of the named target within d
// an action's doing.
func (a *actor) expectExit(name string, pid int, d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.expect[name] = ending{pid: pid, until: time.Now().Add(d + time.Second)}
}

// expectedExit reports whether an action is ending the named target's
// process that exited, t (the process itself, never a Followed, which a
// restart may have moved on to the new process): the process it was
// ending, within the time it gave. A process a restart started, exiting by
// itself, is the target's own doing. It is false for a nil actor.
func (a *actor) expectedExit(name string, t runners.TargetHandle) bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	e, ok := a.expect[name]
	a.mu.Unlock()
	if !ok || !time.Now().Before(e.until) {
		return false
	}
	return t.PID() == e.pid
}

// measuredActive is the active time of the measured phase so far.
func (st *stepRun) measuredActive() time.Duration {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.phase != PhaseMeasure && st.phase != PhaseDrain {
		return 0
	}
	return st.activeLocked(time.Now())
}

// actionEvent records an action's event at active time t.
func (st *stepRun) actionEvent(kind string, t time.Duration, res *artifacts.ActionResult) {
	note := res.Name + ": ok"
	if !res.OK {
		note = res.Name + ": " + res.Error
	}
	if res.Output != "" && res.Kind != plan.ActionExec && res.Kind != plan.ActionHTTPK {
		note += " (" + res.Output + ")"
	}
	if res.ExitCode != nil {
		note += fmt.Sprintf(" (exit %d)", *res.ExitCode)
	}
	if res.Status != 0 {
		note += fmt.Sprintf(" (status %d)", res.Status)
	}
	if res.Rows != nil {
		note += fmt.Sprintf(" (%d rows)", *res.Rows)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.events = append(st.events, artifacts.Event{T: round3(t.Seconds()), Kind: kind, Note: plan.Printable(note), Action: res})
}
