// Package flow runs sequences of requests: a group's `flow:` is an
// ordered list of steps that each virtual user (a worker) runs per
// iteration, where a step may capture values from its reply (a header, a
// JSONPath into the body, a regex, a Postgres column) into variables that
// later steps' templates read as {{.name}}. Steps marked `once` run until
// they have succeeded once per virtual user (login, initialize); `think`
// pauses after a step. A capture that finds nothing is an error of kind
// "capture" and ends the iteration. A once step's `renew` runs it again
// after a time to live, or when a later reply says the session has ended
// (a 401), and then retries the refused request once (renew.go).
//
// The protocol runners (httpload, pgload) send the steps; this package
// holds what they share: the plan's capture syntax, its checks, and the
// iteration that records each step under its name.
package flow

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/benchtui/benchtui/runners/plan"
)

// KindCapture is the error kind of a step whose reply lacked a value
// that the step captures: the request was answered, but the iteration
// cannot go on.
const KindCapture = "capture"

// Def is a flow step as a plan writes it, whichever its protocol.
type Def struct {
	Name    string
	Once    bool
	Think   time.Duration
	Capture map[string]Capture
	// Renew, on a once step, says when it runs again (renew.go).
	Renew *Renew
}

// Step is a compiled flow step.
type Step struct {
	// Name is the step's name, its figures' name (steps[].by_name).
	Name  string
	Once  bool
	Think time.Duration
	// Headers are the reply headers the step's captures read; a sender
	// fills Reply.Headers with their values, in this order.
	Headers []string
	ex      []extractor
	renew   *renewRule // a once step's renew
	watch   []watch    // the renew rules this step's replies are checked against
}

// WantsBody reports whether the step's captures read the reply's body.
func (s *Step) WantsBody() bool {
	for i := range s.ex {
		if s.ex[i].path != nil || s.ex[i].re != nil {
			return true
		}
	}
	for _, w := range s.watch {
		if w.body {
			return true
		}
	}
	return false
}

// Flow is a compiled flow: its steps and the variables they capture.
type Flow struct {
	Steps []Step
	// Vars are the captured variables, in the order the steps capture
	// them; tmpl.State.SetVar takes their indexes.
	Vars   []string
	before []int // before[i]: how many of Vars steps before i capture
}

// Problem is what is wrong with a flow's field; Key names it under the
// runner's section (flow[1].capture.session.json). At, when set, is
// where the entry that has it starts in the plan file.
type Problem struct {
	Key, Msg string
	At       plan.Pos
}

func (p Problem) Error() string { return p.Key + ": " + p.Msg }

func problem(key, format string, args ...any) Problem {
	return Problem{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Compile checks defs and compiles them. columns are the group's data
// file's columns, which a variable may not shadow. Each problem names the
// step (flow[i]) and the field; the flow is nil only when there are too
// many steps to look at.
func Compile(defs []Def, columns []string) (*Flow, []Problem) {
	f := &Flow{}
	var errs []Problem
	if len(defs) > MaxSteps {
		return nil, []Problem{problem("flow", "%d steps; at most %d", len(defs), MaxSteps)}
	}
	seen := map[string]bool{}
	for i, d := range defs {
		f.before = append(f.before, len(f.Vars))
		s := Step{Name: d.Name, Once: d.Once, Think: d.Think}
		if s.Name == "" {
			s.Name = fmt.Sprintf("flow[%d]", i)
		}
		if seen[s.Name] {
			errs = append(errs, problem(fmt.Sprintf("flow[%d].name", i), "%q names two steps", s.Name))
		}
		seen[s.Name] = true
		if d.Think < 0 {
			errs = append(errs, problem(fmt.Sprintf("flow[%d].think", i), "must not be negative"))
		}
		if len(d.Capture) > MaxCaptures {
			errs = append(errs, problem(fmt.Sprintf("flow[%d].capture", i), "%d captures; at most %d", len(d.Capture), MaxCaptures))
			continue
		}
		var p []Problem
		s.renew, p = compileRenew(d, fmt.Sprintf("flow[%d].renew", i))
		errs = append(errs, p...)
		for _, name := range slices.Sorted(maps.Keys(d.Capture)) {
			key := fmt.Sprintf("flow[%d].capture.%s", i, name)
			if err := f.checkVar(name, columns); err != nil {
				errs = append(errs, problem(key, "%v", err))
				continue
			}
			v := slices.Index(f.Vars, name)
			if v < 0 {
				f.Vars = append(f.Vars, name)
				v = len(f.Vars) - 1
			}
			ex, err := d.Capture[name].compile(v, &s.Headers)
			if err != nil {
				errs = append(errs, problem(key, "%v", err))
				continue
			}
			s.ex = append(s.ex, ex)
		}
		f.Steps = append(f.Steps, s)
	}
	f.addWatches()
	return f, errs
}

// checkVar checks a captured variable's name.
func (f *Flow) checkVar(name string, columns []string) error {
	switch {
	case !validVar.MatchString(name):
		return fmt.Errorf("want a name of letters, digits and _ (a letter first, up to 64)")
	case slices.Contains(columns, name):
		return fmt.Errorf("%q is also a column of the data file; name the variable apart", name)
	}
	return nil
}

// VarsBefore are the variables that the steps before step i capture:
// what step i's templates may read (a prefix of Vars, so indexes agree).
// A nil Flow (a mix, not a flow) has none.
func (f *Flow) VarsBefore(i int) []string {
	if f == nil {
		return nil
	}
	return f.Vars[:f.before[i]]
}

// Compiled is the flow of defs, or nil when there are none or they have
// problems (which the plan's validation reports).
func Compiled(defs []Def, columns []string) *Flow {
	if len(defs) == 0 {
		return nil
	}
	f, problems := Compile(defs, columns)
	if len(problems) > 0 {
		return nil
	}
	return f
}

// JoinProblems is problems as one error, each under section's key
// ("redis.commands[0].cmd: …"), nil for none.
func JoinProblems(section string, problems []Problem) error {
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = fmt.Errorf("%s.%s: %s", section, p.Key, p.Msg)
	}
	return errors.Join(errs...)
}
