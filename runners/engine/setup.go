package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// errSetup ends a group whose setup failed: its steps would measure a
// state nobody asked for.
var errSetup = errors.New("setup failed")

// setup runs the group's setup entries due before this step, after the
// runner's Prepare (a postgres group's embedded cluster is up): the
// each_step ones before every step, the others before the first step's
// first run. Each is an event of the step; it stops at the first that
// fails, whose failed check it returns.
func (st *stepRun) setup(ctx context.Context) []artifacts.Check {
	first := st.index == 0 && st.run1 <= 1
	return st.runTasks(ctx, "setup", st.s.group.Setup, func(t *plan.Task) bool { return t.EachStep || first }, true)
}

// teardown runs the group's each_step teardown entries after this step
// (its verify has run); a failed one is a failed check of the step.
func (st *stepRun) teardown(ctx context.Context) []artifacts.Check {
	return st.runTasks(ctx, "teardown", st.s.group.Teardown, func(t *plan.Task) bool { return t.EachStep }, false)
}

// groupTeardown runs the group's teardown entries that are not each_step's
// once its steps are over, however they ended, in st (a run of the last
// step begun); their events and failures go to the group's last result.
func (s *Session) groupTeardown(ctx context.Context, st *stepRun) {
	checks := st.runTasks(ctx, "teardown", s.group.Teardown, func(t *plan.Task) bool { return !t.EachStep }, false)
	st.mu.Lock()
	events := st.events
	st.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.results) == 0 {
		return
	}
	last := &s.results[len(s.results)-1]
	for _, e := range events {
		e.T = last.DurationS
		last.Events = append(last.Events, e)
	}
	last.Checks = append(last.Checks, checks...)
}

// runTasks runs the entries of list that pick chooses, each with the
// step's vars filled in, as events of the step; a failed one is a failed
// check ("setup: NAME"). With stopAtFailure, the first failure ends it.
func (st *stepRun) runTasks(ctx context.Context, list string, tasks []*plan.Task, pick func(*plan.Task) bool, stopAtFailure bool) []artifacts.Check {
	var a *actor
	var checks []artifacts.Check
	for _, t := range tasks {
		if !pick(t) {
			continue
		}
		if a == nil {
			a = st.taskActor(ctx)
			defer a.close()
		}
		act, err := st.s.group.RenderedTask(t, st.spec.Vars)
		var res artifacts.ActionResult
		if err == nil {
			act.Name = list + ": " + t.Label(st.s.group)
			res = a.runAt(&act, 0, st.taskTime())
		} else {
			res = artifacts.ActionResult{Name: list + ": " + t.Label(st.s.group), Error: err.Error()}
		}
		if res.OK {
			continue
		}
		checks = append(checks, artifacts.Check{Name: st.s.plan.Redact(res.Name), Note: st.s.plan.Redact(res.Error)})
		if stopAtFailure {
			break
		}
	}
	return checks
}

// taskTime is when a setup or teardown entry runs, in the step's active
// seconds: 0 before the measured phase, its length after.
func (st *stepRun) taskTime() time.Duration {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.phase == PhaseDone || st.phase == PhaseDrain {
		return st.activeLocked(st.drainAt)
	}
	return 0
}

// taskActor is an actor for setup and teardown entries: no schedule, its
// work bounded by each entry's timeout and by ctx.
func (st *stepRun) taskActor(ctx context.Context) *actor {
	a := &actor{st: st, expect: map[string]ending{},
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2, IdleConnTimeout: 30 * time.Second}}}
	a.ctx, a.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return a
}

// close ends a task actor's work and drops its idle connections.
func (a *actor) close() {
	a.cancel()
	a.client.CloseIdleConnections()
}

// setupFailed is the step's result when its setup failed: no load ran,
// the failed check says why.
func (st *stepRun) setupFailed(checks []artifacts.Check) (*artifacts.Step, error) {
	res := st.result(false) // with the setup's events
	res.Checks = append(res.Checks, checks...)
	return res, fmt.Errorf("group %s step %s: %w: %s", st.s.group.ID, st.spec.Label, errSetup, checks[0].Note)
}

// counts are the requests and errors of the group's finished steps.
func (s *Session) counts() (requests, errs int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.results {
		requests, errs = requests+r.Requests, errs+r.Errors
	}
	return requests, errs
}

// afterTeardown runs the step's each_step teardown and adds its events
// and failures to res, which was made before it.
func (st *stepRun) afterTeardown(ctx context.Context, res *artifacts.Step) {
	st.mu.Lock()
	n := len(st.events)
	st.mu.Unlock()
	checks := st.teardown(ctx)
	st.mu.Lock()
	res.Events = append(res.Events, st.events[n:]...)
	st.mu.Unlock()
	res.Checks = append(res.Checks, checks...)
}
