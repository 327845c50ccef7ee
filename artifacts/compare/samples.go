package compare

import (
	"maps"
	"slices"

	"github.com/benchtui/benchtui/artifacts"
)

// figureSet is a set of figures compared as one: a step's own, or one
// named request's as a step of its own (namedAsStep).
type figureSet struct {
	// name is the named request, "" for the step's own figures.
	name string
	step *artifacts.Step
}

// suffix is what the set's rows add to their metric names: "" or "[NAME]".
func (f figureSet) suffix() string {
	if f.name == "" {
		return ""
	}
	return "[" + f.name + "]"
}

// figureSets are the figure sets of s in row order: its own, then each
// named request's by name.
func figureSets(s *artifacts.Step) []figureSet {
	out := []figureSet{{step: s}}
	for _, name := range slices.Sorted(maps.Keys(s.ByName)) {
		out = append(out, figureSet{name, namedAsStep(s, s.ByName[name])})
	}
	return out
}

// figureSetOf is the figure set of s called name ("" for its own), and
// false when s has no such named request.
func figureSetOf(s *artifacts.Step, name string) (*artifacts.Step, bool) {
	if name == "" {
		return s, true
	}
	n, ok := s.ByName[name]
	if !ok {
		return nil, false
	}
	return namedAsStep(s, n), true
}

// SampledFigure is one figure of one step that Compare judges on
// independent samples, with the values its U-test is given.
type SampledFigure struct {
	Group, Step string
	// Name is the named request (Step.ByName), "" for the step's own
	// figures.
	Name string
	// Metric is the compared metric (MetricThroughput, MetricP99, …), its
	// row's name without the "[NAME]" suffix.
	Metric string
	// Samples says what the values are, as Row.Samples: "runs" or
	// "blocks of 1s".
	Samples string
	// Values are one figure per sample: requests/s, milliseconds, or a
	// fraction for error_rate.
	Values []float64
}

// SampledFigures are the figures of arts that Compare judges on samples,
// taken as Compare takes them: the newest artifact of each group (in
// natural order of the ids), each step, its own figures then each named
// request's, the metrics in row order; figures without samples are left
// out.
func SampledFigures(arts []*artifacts.Artifact) []SampledFigure {
	by := artifacts.NewestByGroup(arts)
	ids := slices.Collect(maps.Keys(by))
	artifacts.SortNatural(ids)
	var out []SampledFigure
	for _, id := range ids {
		for i := range by[id].Steps {
			st := &by[id].Steps[i]
			for _, fs := range figureSets(st) {
				out = appendSampled(out, id, st.Label, fs)
			}
		}
	}
	return out
}

func appendSampled(out []SampledFigure, group, step string, fs figureSet) []SampledFigure {
	for _, m := range metrics {
		if m.judge != bySamples {
			continue
		}
		if vs := sampleValues(fs.step.Samples, m.sample); len(vs) > 0 {
			out = append(out, SampledFigure{Group: group, Step: step, Name: fs.name, Metric: m.name,
				Samples: describe(fs.step.Samples), Values: vs})
		}
	}
	return out
}
