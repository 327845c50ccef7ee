package httpload

import (
	"context"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// Before is a flow of HTTP steps that another runner's virtual users send
// ahead of their own request: an SSE subscriber logs in, then connects
// with the token it captured. The steps have the shape of http.flow's and
// go over net/http, on a client the users share.
type Before struct{ r *Runner }

// NewBefore compiles steps for g (nil: no data file).
func NewBefore(g *plan.Group, steps []Request, insecure bool, timeout time.Duration) (*Before, error) {
	spec := &Spec{Flow: steps, Client: "net/http", InsecureSkipVerify: insecure, Timeout: plan.Duration{Duration: timeout}}
	r := newRunner(spec, g)
	if r.err != nil {
		return nil, r.err
	}
	r.client = newClient(spec, 64, r.timeout())
	return &Before{r: r}, nil
}

// CheckBefore reports the problems of steps as the flow of a section at
// pos (key "group G: sse" names them "sse.flow[i]…"), and the variables
// they capture, which the section's own templates may read.
func CheckBefore(g *plan.Group, steps []Request, pos plan.Pos, key string) (vars []string, errs []error) {
	spec := &Spec{Flow: steps}
	errs = append(spec.Validate(pos, key), spec.FlowProblems(g, pos, key)...)
	errs = append(errs, spec.CheckProblems(g, pos, key)...)
	errs = append(errs, spec.TemplateProblems(g, pos, key)...)
	if f, _ := flow.Compile(flowDefs(steps), columns(g)); f != nil {
		vars = f.Vars
	}
	return vars, errs
}

// Vars are the variables the steps capture.
func (b *Before) Vars() []string { return b.r.flow.Vars }

// NewUser returns a virtual user whose variables st holds, recording each
// step at rec. Its Run sends the steps (once steps only until they have
// succeeded) on st's current data row; the caller starts that (State.Next).
func (b *Before) NewUser(st *tmpl.State, rec flow.Recorder) *BeforeUser {
	return &BeforeUser{w: b.r.newFlowWorker(st, rec)}
}

// Close drops the client's idle connections.
func (b *Before) Close() error { return b.r.Close() }

// BeforeUser is one virtual user of a Before.
type BeforeUser struct{ w *flowWorker }

// Run sends the steps now; its Outcome is the failed step's, if any (each
// step is recorded already).
func (u *BeforeUser) Run(ctx context.Context) runners.Outcome {
	return u.w.user.Iterate(ctx, time.Now(), u.w.sendStep)
}
