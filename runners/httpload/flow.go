package httpload

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// sent is what the section sends, a weighted mix or a flow, and its plan key.
func (s *Spec) sent() ([]Request, string) {
	if len(s.Flow) > 0 {
		return s.Flow, "flow"
	}
	return s.Requests, "requests"
}

// placeProblems reports the fields of a request that its list does not
// take: a flow's steps have no weight, a mix's requests capture nothing.
func (r *Request) placeProblems(pos plan.Pos, key, list string) []error {
	var errs []error
	if list == "flow" && r.Weight != 0 {
		errs = append(errs, plan.Errorf(pos, key+".weight", "a flow's steps run in order, each once per iteration; weight is for requests"))
	}
	for name, c := range r.Capture {
		if c.Column != "" {
			errs = append(errs, plan.Errorf(pos, key+".capture."+name+".column", "is for Postgres statements; an HTTP reply has a header, json or regex"))
		}
	}
	if list == "requests" {
		for field, set := range map[string]bool{"capture": len(r.Capture) > 0, "once": r.Once, "think": r.Think.D() != 0, "renew": r.Renew != nil} {
			if set {
				errs = append(errs, plan.Errorf(pos, key+"."+field, "is for the steps of a flow (http.flow), not the requests of a mix"))
			}
		}
	}
	return errs
}

// FlowProblems reports problems of the section's flow (its captures and
// step names), each at pos naming its field.
func (s *Spec) FlowProblems(g *plan.Group, pos plan.Pos, key string) []error {
	if len(s.Flow) == 0 {
		return nil
	}
	_, problems := flow.Compile(flowDefs(s.Flow), columns(g))
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = plan.Errorf(pos, key+"."+p.Key, "%s", p.Msg)
	}
	return errs
}

// flowDefs are the flow parts of reqs.
func flowDefs(reqs []Request) []flow.Def {
	defs := make([]flow.Def, len(reqs))
	for i, r := range reqs {
		defs[i] = flow.Def{Name: r.Name, Once: r.Once, Think: r.Think.D(), Capture: r.Capture, Renew: r.Renew}
	}
	return defs
}

// columns are g's data file's columns; none for a nil g or no file.
func columns(g *plan.Group) []string {
	if g == nil || g.Table == nil {
		return nil
	}
	return g.Table.Columns
}

// varsBefore are the variables request i's templates may read.
func (r *Runner) varsBefore(i int) []string {
	if r.flow == nil {
		return nil
	}
	return r.flow.VarsBefore(i)
}

// sender sends request i of the runner, reading its reply into sink.
type sender interface {
	runners.Worker
	send(ctx context.Context, i int, sink *replySink) runners.Outcome
}

// flowWorker is a virtual user running the runner's flow.
type flowWorker struct {
	sender
	r    *Runner
	st   *tmpl.State
	user *flow.User
	rec  flow.Recorder
	sink replySink
}

var _ runners.Iterator = (*flowWorker)(nil)

func (r *Runner) newFlowWorker(st *tmpl.State, rec flow.Recorder) *flowWorker {
	w := &flowWorker{r: r, st: st, user: r.flow.NewUser(st, rec), rec: rec}
	if r.lean != nil {
		w.sender = &leanWorker{r: r, st: st, conn: newLeanConn(r.timeout())}
	} else {
		w.sender = &worker{r: r, st: st}
	}
	return w
}

// Do runs one iteration due now.
func (w *flowWorker) Do(ctx context.Context) runners.Outcome { return w.Iterate(ctx, time.Now()) }

// Iterate runs one iteration of the flow due at due, recording each step.
func (w *flowWorker) Iterate(ctx context.Context, due time.Time) runners.Outcome {
	if !w.st.Next() {
		return runners.Outcome{Exhausted: true}
	}
	return w.user.Iterate(ctx, due, w.sendStep)
}

func (w *flowWorker) sendStep(ctx context.Context, i int, r *flow.Reply) runners.Outcome {
	step := &w.r.flow.Steps[i]
	w.sink = replySink{reply: r, headers: step.Headers, body: step.WantsBody()}
	if c := w.r.checks[i]; c != nil { // its headers extend the step's
		w.sink.headers, w.sink.body = c.Headers, w.sink.body || c.WantsBody()
	}
	return w.r.judge(i, w.send(ctx, i, &w.sink), r, w.st, w.rec)
}

// replySink receives what a flow step's captures read of its reply: the
// named headers' first values and up to flow.MaxBodyBytes of the body.
// A nil sink discards everything.
type replySink struct {
	reply   *flow.Reply
	headers []string
	body    bool
}

// reset forgets a reply read in part (before a retry on a new connection).
func (s *replySink) reset() {
	if s != nil {
		s.reply.Reset()
	}
}

// header keeps value when name is one of the wanted headers and the
// first of its name.
func (s *replySink) header(name, value []byte) {
	if s == nil {
		return
	}
	for i, h := range s.headers {
		if !asciiEqual(name, h) {
			continue
		}
		for len(s.reply.Headers) < len(s.headers) {
			s.reply.Headers = append(s.reply.Headers, "")
		}
		if s.reply.Headers[i] == "" {
			s.reply.Headers[i] = string(value)
		}
	}
}

func (s *replySink) wantsBody() bool { return s != nil && s.body }

// Write keeps up to flow.MaxBodyBytes of the body and drops the rest.
func (s *replySink) Write(p []byte) (int, error) {
	room := flow.MaxBodyBytes - len(s.reply.Body)
	s.reply.Body = append(s.reply.Body, p[:max(0, min(room, len(p)))]...)
	return len(p), nil
}

// sinkScratch is the room past the kept body that ReadFrom reads the
// rest of a body into, to drop it.
const sinkScratch = 32 << 10

// ReadFrom reads r to its end: up to flow.MaxBodyBytes into the body,
// the rest into scratch room past it. The room is the reply's own buffer,
// kept across replies, so that reading a body of any size allocates
// nothing once it has grown (io.Copy would allocate a buffer a call, and
// the lean client copies a chunked body a chunk at a time).
func (s *replySink) ReadFrom(r io.Reader) (n int64, err error) {
	for {
		dst, kept := s.room()
		m, err := r.Read(dst)
		n += int64(m)
		if kept {
			s.reply.Body = s.reply.Body[:len(s.reply.Body)+m]
		}
		switch {
		case err == io.EOF:
			return n, nil
		case err != nil:
			return n, err
		}
	}
}

// room is where the next bytes of the body go: the free end of the kept
// body (kept), or, once it holds flow.MaxBodyBytes, the scratch past it.
func (s *replySink) room() (dst []byte, kept bool) {
	b := s.reply.Body
	if keep := flow.MaxBodyBytes - len(b); keep > 0 {
		if cap(b)-len(b) < min(keep, 4<<10) {
			b = slices.Grow(b, min(keep, sinkScratch))
			s.reply.Body = b
		}
		return b[len(b):min(cap(b), flow.MaxBodyBytes)], true
	}
	if cap(b)-len(b) < sinkScratch {
		b = slices.Grow(b, sinkScratch)
		s.reply.Body = b
	}
	return b[len(b) : len(b)+sinkScratch], false
}

// readBody reads the lean client's body into the sink.
func (s *replySink) readBody(br *bufio.Reader, length int64, chunked bool) error {
	switch {
	case chunked:
		return readChunked(br, s)
	case length >= 0:
		_, err := io.CopyN(s, br, length)
		return err
	}
	_, err := io.Copy(s, br) // until the server closes
	return err
}

// read reads net/http's reply: the wanted headers and the body into the
// sink, or the body drained for a nil sink.
func (s *replySink) read(resp *http.Response) error {
	if s == nil {
		_, err := io.Copy(io.Discard, resp.Body)
		return err
	}
	for _, h := range s.headers {
		s.reply.Headers = append(s.reply.Headers, resp.Header.Get(h))
	}
	var w io.Writer = io.Discard
	if s.body {
		w = s
	}
	_, err := io.Copy(w, resp.Body)
	return err
}
