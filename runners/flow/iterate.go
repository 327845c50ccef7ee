package flow

import (
	"context"
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
// iteration after).
type User struct {
	flow  *Flow
	state *tmpl.State
	rec   Recorder
	done  []bool // once steps that have succeeded
	reply Reply
}

// Recorder is where a user records its steps; *runners.Recorder is one.
type Recorder interface {
	Record(due, sent, end time.Time, out runners.Outcome)
	Extra(name string, d time.Duration)
}

// NewUser returns a virtual user of f drawing on st, recording at rec.
func (f *Flow) NewUser(st *tmpl.State, rec Recorder) *User {
	return &User{flow: f, state: st, rec: rec, done: make([]bool, len(f.Steps))}
}

// Send performs step i with the user's state and fills r with what the
// step's captures read (Step.Headers, and the body when Step.WantsBody).
// Its Outcome is the step's: Sent when it went out, its status and error.
type Send func(ctx context.Context, i int, r *Reply) runners.Outcome

// Iterate runs one iteration of the flow, due at due: each step in turn
// (a once step only until it has succeeded), recorded under its name.
// The first step's latency is measured from due (an open loop's schedule),
// each later one's from when it was issued. A step that fails, or whose
// capture finds nothing (KindCapture), ends the iteration. The Outcome it
// returns is marked Recorded, with the failed step's error kind, if any.
// The caller has started the iteration on the user's state (State.Next:
// its data row and {{seq}}).
func (u *User) Iterate(ctx context.Context, due time.Time, send Send) runners.Outcome {
	stepDue := due
	for i := range u.flow.Steps {
		s := &u.flow.Steps[i]
		if s.Once && u.done[i] {
			continue
		}
		if ctx.Err() != nil {
			return runners.Outcome{Err: runners.KindCanceled, Recorded: true}
		}
		out := u.step(ctx, i, stepDue, send)
		if out.Err != "" {
			return runners.Outcome{Err: out.Err, Name: out.Name, Recorded: true}
		}
		u.done[i] = true
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

// step sends step i, applies its captures and records it.
func (u *User) step(ctx context.Context, i int, due time.Time, send Send) runners.Outcome {
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
	u.rec.Record(due, out.Sent, end, out)
	return out
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
