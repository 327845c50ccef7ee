package flow

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// ExtraIteration is the extra timing of a whole iteration that ran to its
// end, from when it was due to its last reply (think times included).
const ExtraIteration = "iteration"

// User is one virtual user: a worker's place in the flow. Its template
// state holds its data row, its {{seq}} and its captured variables, which
// last across iterations (a session captured once is used by every
// iteration after). A user is one worker's: nothing in it is shared.
type User struct {
	flow  *Flow
	state *tmpl.State
	rec   Recorder
	done  []bool      // once steps that have succeeded
	okAt  []time.Time // when each once step last succeeded (renew.after)
	reply Reply
	renewal
}

// renewal is where a user is with renewing its session.
type renewal struct {
	renewing int       // the first once step a renewal under way runs again; -1: none
	pending  bool      // a failed renewal is tried again once the backoff ends
	fails    int       // renewals in a row that failed or did not help
	until    time.Time // backing off until then
	blocked  int       // the once step the backoff is for
}

// Recorder is where a user records its steps; *runners.Recorder is one.
type Recorder interface {
	Record(due, sent, end time.Time, out runners.Outcome)
	Extra(name string, d time.Duration)
	Count(name string, n int64)
}

// NewUser returns a virtual user of f drawing on st, recording at rec.
func (f *Flow) NewUser(st *tmpl.State, rec Recorder) *User {
	return &User{flow: f, state: st, rec: rec, done: make([]bool, len(f.Steps)),
		okAt: make([]time.Time, len(f.Steps)), renewal: renewal{renewing: -1}}
}

// Send performs step i with the user's state and fills r with what the
// step's captures read (Step.Headers, and the body when Step.WantsBody).
// Its Outcome is the step's: Sent when it went out, its status and error.
type Send func(ctx context.Context, i int, r *Reply) runners.Outcome

// Iterate runs one iteration of the flow, due at due: each step in turn
// (a once step only until it has succeeded, and again when it renews),
// recorded under its name. The first step's latency is measured from due
// (an open loop's schedule), each later one's from when it was issued. A
// step that fails, or whose capture finds nothing (KindCapture), ends the
// iteration. The Outcome it returns is marked Recorded, with the failed
// step's error kind, if any. While the user backs off after a failed
// renewal, the iteration sends nothing: it records one error of kind
// runners.KindRenewal and asks a closed loop to wait (Outcome.Backoff).
// The caller has started the iteration on the user's state (State.Next:
// its data row and {{seq}}).
func (u *User) Iterate(ctx context.Context, due time.Time, send Send) runners.Outcome {
	if out, waiting := u.backingOff(due); waiting {
		return out
	}
	stepDue := due
	for i := range u.flow.Steps {
		s := &u.flow.Steps[i]
		if s.Once && u.done[i] && !u.expired(i) {
			continue
		}
		if ctx.Err() != nil {
			return runners.Outcome{Err: runners.KindCanceled, Recorded: true}
		}
		var out runners.Outcome
		if s.Once {
			out = u.once(ctx, i, stepDue, send)
		} else {
			out = u.request(ctx, i, stepDue, send)
		}
		if out.Err != "" {
			return runners.Outcome{Err: out.Err, Name: out.Name, Recorded: true}
		}
		stepDue = time.Now()
		if s.Think > 0 {
			if !runners.SleepUntil(ctx, stepDue.Add(s.Think)) {
				return runners.Outcome{Err: runners.KindCanceled, Recorded: true}
			}
			stepDue = time.Now()
		}
	}
	u.rec.Extra(ExtraIteration, time.Since(due))
	return runners.Outcome{Recorded: true}
}

// attempt is a step sent and its reply read, not yet recorded.
type attempt struct {
	out      runners.Outcome
	due, end time.Time
}

// send sends step i and applies its captures; the reply stays in u.reply.
func (u *User) send(ctx context.Context, i int, due time.Time, send Send) attempt {
	s := &u.flow.Steps[i]
	u.reply.Reset()
	called := time.Now()
	if due.IsZero() {
		due = called
	}
	out := send(ctx, i, &u.reply)
	end := time.Now()
	out.Name = s.Name
	if out.Err == "" && !u.capture(s) {
		out.Err = KindCapture
	}
	if out.Sent.IsZero() {
		out.Sent = called
	}
	return attempt{out: out, due: due, end: end}
}

func (u *User) record(a attempt) { u.rec.Record(a.due, a.out.Sent, a.end, a.out) }

// step sends step i, applies its captures and records it.
func (u *User) step(ctx context.Context, i int, due time.Time, send Send) runners.Outcome {
	a := u.send(ctx, i, due, send)
	u.record(a)
	return a.out
}

// once sends once step i. On success it is done, and a renewal under way
// ends when its once steps all are; a failure fails the renewal. In a
// flow that renews, a failure to open the session the first time backs
// off as well.
func (u *User) once(ctx context.Context, i int, due time.Time, send Send) runners.Outcome {
	out := u.step(ctx, i, due, send)
	if out.Err != "" {
		if out.Err != runners.KindCanceled {
			u.onceFailed(i)
		}
		return out
	}
	u.done[i], u.okAt[i] = true, time.Now()
	if u.renewing >= 0 && u.onceDone(u.renewing) {
		u.renewing = -1
	}
	return out
}

// request sends step i, not a once step. A reply that matches a renew.on
// renews the session at once; when the request had failed, it is sent
// once more with the new captures, and that retry is the request: the
// first attempt is recorded only as the extra timing
// ExtraRetriedAttempt. A retry whose reply asks for a renewal again gets
// none (a renewal cannot loop): the user backs off.
func (u *User) request(ctx context.Context, i int, due time.Time, send Send) runners.Outcome {
	s := &u.flow.Steps[i]
	first := u.send(ctx, i, due, send)
	from := u.renewFrom(s, first.out)
	if from < 0 {
		if first.out.Err == "" {
			u.fails = 0
		}
		u.record(first)
		return first.out
	}
	u.beginRenewal(from)
	if failed, ok := u.renewNow(ctx, from, i, send); !ok {
		u.record(first) // nothing new to retry with: the attempt is the request
		if first.out.Err == "" {
			return failed // the request went through; the session did not
		}
		return first.out
	}
	if first.out.Err == "" {
		u.record(first) // answered: the renewal only refreshed the captures
		return first.out
	}
	u.rec.Extra(ExtraRetriedAttempt, first.end.Sub(first.out.Sent))
	u.rec.Count(CounterRetries, 1)
	retry := u.send(ctx, i, time.Time{}, send)
	switch {
	case retry.out.Err != "" && u.renewFrom(s, retry.out) >= 0:
		u.backOff(from)
	case retry.out.Err == "":
		u.fails = 0
	}
	u.record(retry)
	return retry.out
}

// renewFrom is the once step that the reply to s (in u.reply) asks to
// renew, or -1.
func (u *User) renewFrom(s *Step, out runners.Outcome) int {
	if len(s.watch) == 0 || out.Err == runners.KindCanceled {
		return -1
	}
	return u.flow.renewFor(s, out.Status, &u.reply)
}

// expired reports whether once step i's renew.after has run out since it
// last succeeded; if so, a renewal from it begins.
func (u *User) expired(i int) bool {
	rule := u.flow.Steps[i].renew
	if rule == nil || rule.after <= 0 || time.Since(u.okAt[i]) < rule.after {
		return false
	}
	u.beginRenewal(i)
	return true
}

// beginRenewal makes once step from, and every once step after it, run
// again, and counts a renewal.
func (u *User) beginRenewal(from int) {
	for j := from; j < len(u.flow.Steps); j++ {
		if u.flow.Steps[j].Once {
			u.done[j] = false
		}
	}
	if u.renewing < 0 || from < u.renewing {
		u.renewing = from
	}
	u.rec.Count(CounterRenewals, 1)
}

// renewNow runs the once steps from from up to step upto again, without
// their think times; ok is false, with the failed step's Outcome, when
// one failed.
func (u *User) renewNow(ctx context.Context, from, upto int, send Send) (runners.Outcome, bool) {
	for j := from; j < upto; j++ {
		if !u.flow.Steps[j].Once || u.done[j] {
			continue
		}
		if ctx.Err() != nil {
			return runners.Outcome{Err: runners.KindCanceled}, false
		}
		if out := u.once(ctx, j, time.Time{}, send); out.Err != "" {
			return out, false
		}
	}
	return runners.Outcome{}, true
}

// onceDone reports whether every once step from from on has succeeded.
func (u *User) onceDone(from int) bool {
	for j := from; j < len(u.flow.Steps); j++ {
		if u.flow.Steps[j].Once && !u.done[j] {
			return false
		}
	}
	return true
}

// onceFailed backs off after once step i failed: in a renewal (counted),
// or, in a flow that renews, when the session could not be opened at all.
func (u *User) onceFailed(i int) {
	switch {
	case u.renewing >= 0:
		u.renewalFailed()
	case u.flow.Renews():
		u.backOff(i)
	}
}

// renewalFailed counts a failed renewal and backs off; the renewal is
// tried again once the backoff ends.
func (u *User) renewalFailed() {
	u.rec.Count(CounterRenewalsFailed, 1)
	u.pending = true
	u.backOff(u.renewing)
}

// backOff makes the user send nothing for a while: the n-th time in a row
// between half and all of min(BackoffMin·2ⁿ⁻¹, BackoffMax), so users that
// failed together do not come back together.
func (u *User) backOff(step int) {
	u.fails++
	d := min(BackoffMin<<min(u.fails-1, 16), BackoffMax)
	d = d/2 + rand.N(d/2+1)
	u.until, u.blocked = time.Now().Add(d), step
}

// backingOff records the iteration due at due as not sent (KindRenewal)
// while the user backs off; once the backoff is over, a pending renewal
// is counted as begun again.
func (u *User) backingOff(due time.Time) (runners.Outcome, bool) {
	now := time.Now()
	if now.Before(u.until) {
		wait := u.until.Sub(now)
		name := u.flow.Steps[u.blocked].Name
		out := runners.Outcome{Err: runners.KindRenewal, Name: name, Detail: renewDetail(name, wait), Sent: now}
		if due.IsZero() || due.After(now) {
			due = now
		}
		u.rec.Record(due, now, now, out)
		out.Recorded, out.Backoff = true, wait
		return out, true
	}
	if u.pending {
		u.pending = false
		u.rec.Count(CounterRenewals, 1)
	}
	return runners.Outcome{}, false
}

// capture sets the step's variables from the reply; false when one of
// them is not there.
func (u *User) capture(s *Step) bool {
	for i := range s.ex {
		v, ok := s.ex[i].extract(&u.reply)
		if !ok {
			return false
		}
		u.state.SetVar(s.ex[i].v, v)
	}
	return true
}

// Worker is a runner's worker whose operation is one iteration of a flow:
// each iteration takes the next of the template state's values (a data
// row, a {{seq}}) and sends the steps in order through send.
type Worker struct {
	st    *tmpl.State
	user  *User
	send  Send
	close func() error
}

// NewWorker returns a worker running f as one virtual user, recording
// each step on rec; its Close calls close (nil: nothing to release).
func (f *Flow) NewWorker(st *tmpl.State, rec Recorder, send Send, close func() error) *Worker {
	return &Worker{st: st, user: f.NewUser(st, rec), send: send, close: close}
}

// Close releases what the runner's worker holds.
func (w *Worker) Close() error {
	if w.close == nil {
		return nil
	}
	return w.close()
}

// Do runs one iteration due now.
func (w *Worker) Do(ctx context.Context) runners.Outcome { return w.Iterate(ctx, time.Now()) }

// Iterate runs one iteration of the flow due at due, recording each step;
// a data file's unique rows that ran out end the worker's load.
func (w *Worker) Iterate(ctx context.Context, due time.Time) runners.Outcome {
	if !w.st.Next() {
		return runners.Outcome{Exhausted: true}
	}
	return w.user.Iterate(ctx, due, w.send)
}
