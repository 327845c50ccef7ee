package engine

import (
	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// figureChecks judges a step against the plan's `thresholds.checks`: one
// check per entry, named with the figure, the operator and the limit
// ("p95 <= 20ms", "errors between 0 and 3"), its value the figure (in
// milliseconds for times). A figure the step lacks fails, saying so.
func figureChecks(list []plan.FigureCheck, s *artifacts.Step) []artifacts.Check {
	checks := make([]artifacts.Check, 0, len(list))
	for _, fc := range list {
		fig, lim, err := fc.Compile()
		if err != nil {
			checks = append(checks, artifacts.Check{Name: fc.Figure, Note: err.Error()})
			continue
		}
		name := fc.Figure + " " + lim.String()
		v, err := fig.Of(s)
		if err != nil {
			checks = append(checks, artifacts.Check{Name: name, Note: err.Error()})
			continue
		}
		checks = append(checks, artifacts.Check{Name: name, OK: lim.Holds(v), Value: v})
	}
	return checks
}
