package plan

import (
	"errors"
	"fmt"
	"slices"

	"github.com/benchtui/benchtui/artifacts"
)

// FigureCheck is one entry of `thresholds.checks:`: a limit on any figure
// of a step, named by its path (artifacts.ParseFigure), with one operator
// whose limit is a constant or another figure (FigureRef):
//
//	checks:
//	  - {figure: p95, "<=": 20ms}
//	  - {figure: target.fds_per_unit, "<=": 1.5}
//	  - {figure: errors, between: [0, 3]}
//	  - {figure: ok_rps, ">=": {figure: offered_rps, times: 0.95}}
//	  - {figure: rps, ">=": {figure: rps, step: previous}}
//	  - {figure: p99, "<=": {figure: p99, group: arm-a, times: 1.2}}
type FigureCheck struct {
	Figure                string `yaml:"figure,required"`
	ComparisonOf[Operand] `yaml:",inline"`
	// Steps, when given, are the numbers (from 1) of the only steps the
	// check judges.
	Steps []int `yaml:"steps"`
	// Pos is where the entry starts in the plan file.
	Pos Pos `yaml:"-"`
}

// CompiledCheck is a threshold check ready to judge: Figure Op Bounds
// (one bound, two for between).
type CompiledCheck struct {
	Figure artifacts.Figure
	Op     string
	Bounds []Bound
	// Millis: the figure and its limits are milliseconds.
	Millis bool
	// Steps are the numbers of the only steps judged; nil: every step
	// (but those a reference to an earlier step rules out: Judges).
	Steps []int
}

// Compile parses the check's figure and limits; a validated plan's checks
// always compile.
func (c FigureCheck) Compile() (CompiledCheck, error) {
	cc := CompiledCheck{Steps: c.Steps}
	fig, err := artifacts.ParseFigure(c.Figure)
	if err != nil {
		return cc, err
	}
	cc.Figure, cc.Millis = fig, fig.Millis()
	op, operands, err := c.Operator()
	if err != nil {
		return cc, err
	}
	cc.Op = op
	consts := make([]string, len(operands))
	refs := make([]*RefBound, len(operands))
	for i, o := range operands {
		consts[i] = o.Value
		if o.Ref != nil {
			consts[i] = "0" // a placeholder: the reference's figure sets it
			if refs[i], err = compileRef(o.Ref, c.Figure, cc.Millis); err != nil {
				return cc, err
			}
		}
	}
	lim, err := CompileLimit(op, consts, cc.Millis)
	if err != nil && (op != OpBetween || (refs[0] == nil && refs[1] == nil) || lim.Lo <= lim.Hi) {
		return cc, err // between's order is known only of two constants
	}
	for i := range operands {
		cc.Bounds = append(cc.Bounds, Bound{Value: []float64{lim.Lo, lim.Hi}[i], Ref: refs[i]})
	}
	return cc, nil
}

// Name is the check as a step shows it: the figure, the operator and the
// limits ("p95 <= 20ms", "errors between 0 and 3", "ok_rps >= 0.95 ×
// offered_rps").
func (c CompiledCheck) Name() string {
	if c.Op == OpBetween {
		return fmt.Sprintf("%s between %s and %s", c.Figure.Path, c.Bounds[0].String(c.Millis), c.Bounds[1].String(c.Millis))
	}
	return c.Figure.Path + " " + c.Op + " " + c.Bounds[0].String(c.Millis)
}

// Relative reports whether a limit is another figure.
func (c CompiledCheck) Relative() bool {
	return slices.ContainsFunc(c.Bounds, func(b Bound) bool { return b.Ref != nil })
}

// Judges reports whether the check judges step n (from 1): one of its
// `steps:` when given, and a step after every step of its own group it
// refers to (the first step has no previous one).
func (c CompiledCheck) Judges(n int) bool {
	if c.Steps != nil && !slices.Contains(c.Steps, n) {
		return false
	}
	for _, b := range c.Bounds {
		if r := b.Ref; r != nil && r.Group == "" && ((r.Step == -1 && n == 1) || (r.Step > 0 && n <= r.Step)) {
			return false
		}
	}
	return true
}

// Limit is the comparison with the limits vals (one per bound).
func (c CompiledCheck) Limit(vals []float64) Limit {
	return Limit{Op: c.Op, Lo: vals[0], Hi: vals[len(vals)-1], Millis: c.Millis}
}

// validate reports every problem of the threshold checks of group id,
// each at its entry's line and naming its field.
func (t Thresholds) validate(id string) []error {
	var errs []error
	for i, c := range t.Checks {
		key := fmt.Sprintf("group %s: thresholds.checks[%d]", id, i)
		if _, err := artifacts.ParseFigure(c.Figure); err != nil {
			if c.Figure != "" { // a missing figure is the decoder's to report
				errs = append(errs, Errorf(c.Pos, key+".figure", "%v", err))
			}
			continue
		}
		errs = append(errs, c.validate(key)...)
	}
	return errs
}

// validate reports the problems of a check whose figure parses.
func (c FigureCheck) validate(key string) []error {
	op, operands, err := c.Operator()
	switch {
	case err != nil:
		return []error{Errorf(c.Pos, key, "%v", err)}
	case op == "":
		return []error{Errorf(c.Pos, key, "%v", errNoOperator)}
	}
	var errs []error
	fig, _ := artifacts.ParseFigure(c.Figure)
	for i, o := range operands {
		if o.Ref == nil {
			continue
		}
		field := key + "." + op
		if op == OpBetween {
			field = fmt.Sprintf("%s[%d]", field, i)
		}
		if _, err := compileRef(o.Ref, c.Figure, fig.Millis()); err != nil {
			var fe *fieldError
			if errors.As(err, &fe) {
				field, err = joinKey(field, fe.field), fe.err
			}
			errs = append(errs, Errorf(o.Ref.Pos, field, "%v", err))
		}
	}
	for j, n := range c.Steps {
		if n < 1 {
			errs = append(errs, Errorf(c.Pos, fmt.Sprintf("%s.steps[%d]", key, j), "want a step's number from 1, got %d", n))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if _, err := c.Compile(); err != nil {
		errs = append(errs, Errorf(c.Pos, key+"."+op, "%v", err))
	}
	return errs
}

// problem is the check's first problem at its line, its key under key;
// nil when it compiles. A missing figure is the decoder's to report.
func (c FigureCheck) problem(key string) error {
	if _, err := artifacts.ParseFigure(c.Figure); err != nil {
		if c.Figure != "" {
			return Errorf(c.Pos, key+".figure", "%v", err)
		}
		return nil
	}
	if errs := c.validate(key); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// Condition compiles the check as an action's condition (when:): a
// figure and a constant limit; a limit that is another figure, or
// steps:, is an error.
func (c FigureCheck) Condition() (artifacts.Figure, Limit, error) {
	cc, err := c.Compile()
	switch {
	case err != nil:
		return cc.Figure, Limit{}, err
	case cc.Relative():
		return cc.Figure, Limit{}, errors.New("a condition's limit is a number or a duration, not another figure")
	case c.Steps != nil:
		return cc.Figure, Limit{}, errors.New("a condition has no steps: (it is judged in every step)")
	}
	vals := make([]float64, len(cc.Bounds))
	for i, b := range cc.Bounds {
		vals[i] = b.Value
	}
	return cc.Figure, cc.Limit(vals), nil
}
