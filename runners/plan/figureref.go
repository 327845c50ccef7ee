package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
)

// Operand is one limit of a threshold check as written: a constant
// (`20ms`, `1.5`: Value) or, written as a mapping, another figure (Ref):
//
//   - {figure: ok_rps, ">=": 100}
//   - {figure: ok_rps, ">=": {figure: offered_rps, times: 0.95}}
type Operand struct {
	Value string
	Ref   *FigureRef
}

// FigureRef is a limit that is another figure: of the judged step, of
// another step of its group (`step:`), or of a step of a group run before
// it in the same run (`group:`), times a factor, plus an offset.
type FigureRef struct {
	// Figure is the figure's path, as a check's `figure:`.
	Figure string `yaml:"figure,required"`
	// Step is "" (the judged step; with Group, the step of the same
	// number), "previous" (the step before it), or a step's number from 1.
	Step string `yaml:"step"`
	// Group is another group of the plan, before the check's own.
	Group string `yaml:"group"`
	// Times multiplies the figure (default 1); Plus is added after (a
	// duration or milliseconds for a time, else a number).
	Times *float64 `yaml:"times"`
	Plus  string   `yaml:"plus"`
	Pos   Pos      `yaml:"-"`
}

// StepPrevious is the `step:` of a reference to the step before the judged one.
const StepPrevious = "previous"

// Bound is a compiled operand: the constant Value, or Ref's figure.
type Bound struct {
	Value float64
	Ref   *RefBound
}

// RefBound is a compiled reference: Times × Figure of a step + Plus.
type RefBound struct {
	Figure artifacts.Figure
	// Group is "" for the check's own group.
	Group string
	// Step is the step referred to: 0 the judged step (or, with Group,
	// the step of the same number), -1 the previous one, N > 0 step N.
	Step        int
	Times, Plus float64
}

// compileRef parses a reference of a check on a figure whose times are
// in milliseconds when millis; self is the check's own figure, for the
// reference that would compare a figure with itself.
func compileRef(r *FigureRef, self string, millis bool) (*RefBound, error) {
	fig, err := artifacts.ParseFigure(r.Figure)
	if err != nil {
		return nil, &fieldError{"figure", err}
	}
	if fig.Millis() != millis {
		return nil, &fieldError{"figure", fmt.Errorf("%s and %s are not alike: one is a time (ms), the other is not", self, r.Figure)}
	}
	b := &RefBound{Figure: fig, Group: r.Group, Times: 1}
	switch s := strings.TrimSpace(r.Step); s {
	case "":
	case StepPrevious:
		b.Step = -1
	default:
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxStepRef {
			return nil, &fieldError{"step", fmt.Errorf("want previous or a step's number from 1, got %q", r.Step)}
		}
		b.Step = n
	}
	if r.Times != nil {
		if t := *r.Times; t <= 0 || math.IsInf(t, 0) || math.IsNaN(t) {
			return nil, &fieldError{"times", fmt.Errorf("want a factor above 0, got %v", t)}
		}
		b.Times = *r.Times
	}
	if r.Plus != "" {
		if b.Plus, err = parseLimit(strings.TrimSpace(r.Plus), millis); err != nil {
			return nil, &fieldError{"plus", err}
		}
	}
	if b.Group == "" && b.Step == 0 && r.Figure == self {
		return nil, fmt.Errorf("compares %s with itself: name another figure, or give step or group", self)
	}
	return b, nil
}

// MaxStepRef bounds a reference's step number (a group's steps are far fewer).
const MaxStepRef = 1_000_000

// String is the reference as a check's name shows it: "offered_rps",
// "0.95 × offered_rps", "previous step's rps", "1.2 × g10-arm-a p99",
// "g10-arm-a step 2's p99 + 5ms".
func (b *RefBound) String(millis bool) string {
	var s strings.Builder
	if b.Times != 1 {
		s.WriteString(strconv.FormatFloat(b.Times, 'g', -1, 64) + " × ")
	}
	if b.Group != "" {
		s.WriteString(b.Group + " ")
	}
	switch {
	case b.Step == -1:
		s.WriteString("previous step's ")
	case b.Step > 0:
		fmt.Fprintf(&s, "step %d's ", b.Step)
	}
	s.WriteString(b.Figure.Path)
	if b.Plus != 0 {
		s.WriteString(" + " + Limit{Millis: millis}.show(b.Plus))
	}
	return s.String()
}

// StepFor is the number of the step r reads when step n (from 1) is
// judged: n itself, the one before it, or the step r names.
func (b *RefBound) StepFor(n int) int {
	switch {
	case b.Step == -1:
		return n - 1
	case b.Step > 0:
		return b.Step
	}
	return n
}

// Of is the limit the reference sets when its figure is v.
func (b *RefBound) Of(v float64) float64 { return b.Times*v + b.Plus }

// String shows the bound: its constant, or its reference.
func (b Bound) String(millis bool) string {
	if b.Ref != nil {
		return b.Ref.String(millis)
	}
	return Limit{Millis: millis}.show(b.Value)
}

// fieldError is a problem of one key of a reference.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// asFieldError is errors.As for a reference's field error.
func asFieldError(err error, fe **fieldError) bool { return errors.As(err, fe) }

// ReferredGroups are the other groups the checks refer to, each once, in
// the order they are first named.
func (t Thresholds) ReferredGroups() []string {
	var out []string
	for _, c := range t.Checks {
		_, operands, _ := c.Operator()
		for _, o := range operands {
			if o.Ref != nil && o.Ref.Group != "" && !slices.Contains(out, o.Ref.Group) {
				out = append(out, o.Ref.Group)
			}
		}
	}
	return out
}
