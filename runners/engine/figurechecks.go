package engine

import (
	"fmt"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// CheckContext is what a step's threshold checks read beside the step
// itself when a limit is another figure: the group's steps before it and
// the steps the run's other groups finished.
type CheckContext struct {
	// Earlier are the group's steps before the judged one, in order: the
	// judged step's number is len(Earlier)+1.
	Earlier []artifacts.Step
	// Groups returns the steps group id finished in this run, false when
	// it has not run; nil: no other group has.
	Groups func(id string) ([]artifacts.Step, bool)
}

// figureChecks judges a step against the plan's `thresholds.checks`: one
// check per entry that judges this step, named with the figure, the
// operator and the limit ("p95 <= 20ms", "errors between 0 and 3",
// "ok_rps >= 0.95 × offered_rps"), its value the figure (in milliseconds
// for times) and, for a limit that is another figure, that limit. A
// figure the step (or the step referred to) lacks fails, saying so.
func figureChecks(list []plan.FigureCheck, s *artifacts.Step, at CheckContext) []artifacts.Check {
	checks := make([]artifacts.Check, 0, len(list))
	for _, fc := range list {
		cc, err := fc.Compile()
		if err != nil {
			checks = append(checks, artifacts.Check{Name: fc.Figure, Note: err.Error()})
			continue
		}
		if cc.Judges(len(at.Earlier) + 1) {
			checks = append(checks, judge(cc, s, at))
		}
	}
	return checks
}

// judge is one check of step s.
func judge(cc plan.CompiledCheck, s *artifacts.Step, at CheckContext) artifacts.Check {
	c := artifacts.Check{Name: cc.Name()}
	v, err := cc.Figure.Of(s)
	if err != nil {
		c.Note = err.Error()
		return c
	}
	limits := make([]float64, len(cc.Bounds))
	for i, b := range cc.Bounds {
		limits[i] = b.Value
		if b.Ref == nil {
			continue
		}
		if limits[i], err = at.resolve(b.Ref, s); err != nil {
			c.Note = err.Error()
			return c
		}
	}
	c.Value, c.OK = v, cc.Limit(limits).Holds(v)
	if cc.Relative() {
		c.Limits = limits
		if cc.Millis {
			c.Unit = artifacts.UnitMS
		}
	}
	return c
}

// resolve is the limit reference r sets for step s: its figure read from
// the step it names, times its factor, plus its offset. A step or group
// that has not run, or a figure it lacks, is an error saying so.
func (at CheckContext) resolve(r *plan.RefBound, s *artifacts.Step) (float64, error) {
	n := len(at.Earlier) + 1
	want := r.StepFor(n)
	var ref *artifacts.Step
	where := fmt.Sprintf("step %d", want)
	switch {
	case r.Group != "":
		where = r.Group + " " + where
		var steps []artifacts.Step
		ok := false
		if at.Groups != nil {
			steps, ok = at.Groups(r.Group)
		}
		switch {
		case !ok:
			return 0, fmt.Errorf("group %s has not run in this run: this check needs its figures", r.Group)
		case want < 1 || want > len(steps):
			return 0, fmt.Errorf("group %s has no step %d in this run (it finished %d)", r.Group, want, len(steps))
		}
		ref = &steps[want-1]
	case want == n:
		ref = s
	case want >= 1 && want < n:
		ref = &at.Earlier[want-1]
	default:
		return 0, fmt.Errorf("step %d has not run before step %d", want, n)
	}
	v, err := r.Figure.Of(ref)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", where, err)
	}
	return r.Of(v), nil
}
