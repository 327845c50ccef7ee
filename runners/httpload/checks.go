package httpload

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// A request's `assert:` entries judge its reply (package flow's Checks):
// a reply with an expected status that fails one is an error of kind
// flow.KindAssertion. Its `tally:` counts a pattern's matches in each
// such reply into a counter of the step.

// CheckProblems reports the problems of every request's assert and tally
// as plan errors: at the assert entry's line, else at pos, naming the
// field under key.
func (s *Spec) CheckProblems(g *plan.Group, pos plan.Pos, key string) []error {
	reqs, list := s.sent()
	var f *flow.Flow
	if list == "flow" {
		if f, _ = flow.Compile(flowDefs(reqs), columns(g)); f == nil {
			return nil // FlowProblems says why
		}
	}
	_, problems := compileChecks(reqs, f, g)
	errs := make([]error, len(problems))
	for i, p := range problems {
		at := pos
		if p.At.Line > 0 {
			at = p.At
		}
		errs[i] = plan.Errorf(at, fmt.Sprintf("%s.%s%s", key, list, p.Key), "%s", p.Msg)
	}
	return errs
}

// compileChecks compiles each request's checks (nil for one without); f
// (nil for a mix) gives a step's capture headers and the variables its
// limits may read. Each problem's Key starts with the request's index,
// "[i].assert[0]".
func compileChecks(reqs []Request, f *flow.Flow, g *plan.Group) ([]*flow.Checks, []flow.Problem) {
	if g == nil {
		g = &plan.Group{}
	}
	checks := make([]*flow.Checks, len(reqs))
	var problems []flow.Problem
	for i := range reqs {
		var headers, vars []string
		if f != nil {
			headers, vars = f.Steps[i].Headers, f.VarsBefore(i)
		}
		var p []flow.Problem
		checks[i], p = flow.CompileChecks(reqs[i].Assert, reqs[i].Tally, headers, limitCompiler(g, vars))
		for _, q := range p {
			q.Key = fmt.Sprintf("[%d].%s", i, q.Key)
			problems = append(problems, q)
		}
	}
	return checks, problems
}

// limitCompiler compiles an assertion's limit as a field of g's requests
// that may read vars.
func limitCompiler(g *plan.Group, vars []string) flow.LimitCompiler {
	return func(src string) (*tmpl.Template, error) {
		t, err := g.TemplateVars(plan.Pos{}, "", src, vars)
		if pe := (*plan.PosError)(nil); errors.As(err, &pe) {
			err = errors.New(pe.Msg)
		}
		return t, err
	}
}

// tallyCounters are the counters the tallies of reqs count.
func tallyCounters(reqs []Request) []string {
	var names []string
	for _, r := range reqs {
		for _, name := range slices.Sorted(maps.Keys(r.Tally)) {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	return names
}

// JudgesReplies reports whether some request of s has assert or tally.
func (s *Spec) JudgesReplies() bool {
	reqs, _ := s.sent()
	return slices.ContainsFunc(reqs, func(r Request) bool { return len(r.Assert) > 0 || len(r.Tally) > 0 })
}

// judge applies request i's checks to its reply (read into reply) when
// its status was expected: its tallies are counted at rec, and a failed
// assertion makes it an error of kind flow.KindAssertion, its latency
// measured as any answered request's.
func (r *Runner) judge(i int, out runners.Outcome, reply *flow.Reply, st *tmpl.State, rec flow.Recorder) runners.Outcome {
	c := r.checks[i]
	if c == nil || out.Err != "" {
		return out
	}
	if detail, ok := c.Judge(reply, st, rec); !ok {
		out.Err, out.Detail = flow.KindAssertion, detail
	}
	return out
}

// replyChecker is a mix worker's reading of the replies its checks judge.
type replyChecker struct {
	rec   flow.Recorder
	reply flow.Reply
	sink  replySink
}

// sinkFor is where request i's reply is read: nil (discarded) when it
// has no checks.
func (c *replyChecker) sinkFor(r *Runner, i int) *replySink {
	ch := r.checks[i]
	if ch == nil {
		return nil
	}
	c.reply.Reset()
	c.sink = replySink{reply: &c.reply, headers: ch.Headers, body: ch.WantsBody()}
	return &c.sink
}

// sendChecked sends request i of a mix with s and judges its reply.
func (c *replyChecker) sendChecked(ctx context.Context, s sender, r *Runner, i int, st *tmpl.State) runners.Outcome {
	return r.judge(i, s.send(ctx, i, c.sinkFor(r, i)), &c.reply, st, c.rec)
}
