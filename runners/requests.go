package runners

import "time"

// RequestRecord is one operation as the request stream (run --requests)
// writes it: when it was due, went out and ended, how it ended, and where
// in the run it belongs.
type RequestRecord struct {
	Due, Sent, End time.Time
	// Err is the error kind, "" on success; Status the protocol's status
	// code, 0 without one; Name the plan's name of what was sent.
	Err    string
	Status int
	Name   string
	// Group is the group's id, Step the step's label ("" without one) and
	// Index its 0-based index.
	Group, Step string
	Index       int
}

// RequestSink takes every operation a step records. Request is called on
// the workers' path: it must not block (a sink that cannot keep up drops
// and counts). Nil on a recorder costs one comparison per operation.
type RequestSink interface {
	Request(RequestRecord)
}

// requestTap is what a recorder needs to hand its operations to a sink:
// the sink and where the step is in the run.
type requestTap struct {
	sink        RequestSink
	group, step string
	index       int
}

func (t *requestTap) send(due, sent, end time.Time, out Outcome) {
	if sent.IsZero() {
		sent = due
	}
	t.sink.Request(RequestRecord{Due: due, Sent: sent, End: end, Err: out.Err, Status: out.Status, Name: out.Name,
		Group: t.group, Step: t.step, Index: t.index})
}

// SetRequestSink makes every recorder of the step, and of the loads it
// adds later (ForLoad), hand its operations to sink as well. Call it
// before any operation is recorded (the engine does, as it makes the
// step); a nil sink records none.
func (e *StepEnv) SetRequestSink(sink RequestSink) {
	if sink == nil {
		return
	}
	group := ""
	if e.Group != nil {
		group = e.Group.ID
	}
	e.tap = &requestTap{sink: sink, group: group, step: e.Label, index: e.Index}
	for _, r := range e.Recorders() {
		r.tap = e.tap
	}
}
