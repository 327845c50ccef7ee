package plan

import (
	"fmt"
	"slices"
	"strings"
)

// checkRefProblems reports what the plan tells of the references of g's
// threshold checks: a group not in the plan, g itself or a group after
// it (a check may refer only to groups run before its own), a step that
// the group referred to does not have, and `steps:` that g does not have
// or that come no later than the step of g they refer to.
func (p *Plan) checkRefProblems(g *Group) []error {
	own := len(Steps(g, 0))
	var errs []error
	for i, c := range g.Thresholds.Checks {
		cc, err := c.Compile()
		if err != nil {
			continue // validate reports it
		}
		key := fmt.Sprintf("group %s: thresholds.checks[%d]", g.ID, i)
		for j, n := range c.Steps {
			if n > own {
				errs = append(errs, Errorf(c.Pos, fmt.Sprintf("%s.steps[%d]", key, j), "step %d: the group has %d step(s)", n, own))
			}
		}
		_, operands, _ := c.Operator()
		for k, b := range cc.Bounds {
			if b.Ref == nil {
				continue
			}
			field := key + "." + cc.Op
			if cc.Op == OpBetween {
				field = fmt.Sprintf("%s[%d]", field, k)
			}
			if err := p.refProblem(g, own, cc, b.Ref); err != nil {
				var fe *fieldError
				if asFieldError(err, &fe) {
					field, err = joinKey(field, fe.field), fe.err
				}
				errs = append(errs, Errorf(operands[k].Ref.Pos, field, "%v", err))
			}
		}
	}
	return errs
}

// refProblem is what is wrong with reference r of check cc of g, whose
// own steps are own; nil when nothing is.
func (p *Plan) refProblem(g *Group, own int, cc CompiledCheck, r *RefBound) error {
	judged := judgedSteps(cc, own)
	if r.Group == "" {
		switch {
		case r.Step > own:
			return &fieldError{"step", fmt.Errorf("step %d: the group has %d step(s)", r.Step, own)}
		case len(judged) == 0 && r.Step == -1:
			return &fieldError{"step", fmt.Errorf("no step of the group has a previous one to compare with (the group has %d step(s)%s)", own, stepsNote(cc))}
		case len(judged) == 0:
			return &fieldError{"step", fmt.Errorf("no step of the group comes after step %d to compare with it (the group has %d step(s)%s)", r.Step, own, stepsNote(cc))}
		}
		return nil
	}
	at := slices.IndexFunc(p.Groups, func(o *Group) bool { return o.ID == r.Group })
	switch {
	case at < 0:
		return &fieldError{"group", fmt.Errorf("no group %q in the plan (groups: %s)", r.Group, groupIDs(p.Groups))}
	case p.Groups[at] == g:
		return &fieldError{"group", fmt.Errorf("%q is the check's own group: leave group out (step: names another step of it)", r.Group)}
	case at > slices.Index(p.Groups, g):
		return &fieldError{"group", fmt.Errorf("group %s comes after %s: a check may refer only to groups before its own, which have run when it is judged", r.Group, g.ID)}
	}
	other := len(Steps(p.Groups[at], 0))
	for _, n := range judged {
		if want := r.StepFor(n); want < 1 || want > other {
			return &fieldError{"step", fmt.Errorf("step %d of %s would compare with step %d of %s, which has %d step(s)", n, g.ID, want, r.Group, other)}
		}
	}
	return nil
}

// judgedSteps are the numbers of the steps of a group with own steps that
// cc judges.
func judgedSteps(cc CompiledCheck, own int) []int {
	var out []int
	for n := 1; n <= own; n++ {
		if cc.Judges(n) {
			out = append(out, n)
		}
	}
	return out
}

func stepsNote(cc CompiledCheck) string {
	if cc.Steps == nil {
		return ""
	}
	return fmt.Sprintf(" and the check judges steps %v", cc.Steps)
}

func groupIDs(groups []*Group) string {
	ids := make([]string, len(groups))
	for i, g := range groups {
		ids[i] = g.ID
	}
	return strings.Join(ids, ", ")
}
