package plan

import (
	"fmt"

	"github.com/benchtui/benchtui/artifacts"
)

// FigureCheck is one entry of `thresholds.checks:`: a limit on any figure
// of a step, named by its path (artifacts.ParseFigure), with one operator:
//
//	checks:
//	  - {figure: p95, "<=": 20ms}
//	  - {figure: target.fds_per_unit, "<=": 1.5}
//	  - {figure: errors, between: [0, 3]}
type FigureCheck struct {
	Figure     string `yaml:"figure,required"`
	Comparison `yaml:",inline"`
	// Pos is where the entry starts in the plan file.
	Pos Pos `yaml:"-"`
}

// Compile parses the check's figure and limit; a validated plan's checks
// always compile.
func (c FigureCheck) Compile() (artifacts.Figure, Limit, error) {
	fig, err := artifacts.ParseFigure(c.Figure)
	if err != nil {
		return fig, Limit{}, err
	}
	op, limits, err := c.Operator()
	if err != nil {
		return fig, Limit{}, err
	}
	lim, err := CompileLimit(op, limits, fig.Millis())
	return fig, lim, err
}

// validate reports every problem of the threshold checks of group id,
// each at its entry's line and naming its field.
func (t Thresholds) validate(id string) []error {
	var errs []error
	for i, c := range t.Checks {
		if err := c.problem(fmt.Sprintf("group %s: thresholds.checks[%d]", id, i)); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// problem is the check's problem at its line, its key under key; nil when
// it compiles. A missing figure is the decoder's to report.
func (c FigureCheck) problem(key string) error {
	fig, err := artifacts.ParseFigure(c.Figure)
	if err != nil {
		if c.Figure != "" {
			return Errorf(c.Pos, key+".figure", "%v", err)
		}
		return nil
	}
	op, limits, err := c.Operator()
	switch {
	case err != nil:
		return Errorf(c.Pos, key, "%v", err)
	case op == "":
		return Errorf(c.Pos, key, "%v", errNoOperator)
	}
	if _, err := CompileLimit(op, limits, fig.Millis()); err != nil {
		return Errorf(c.Pos, key+"."+op, "%v", err)
	}
	return nil
}
