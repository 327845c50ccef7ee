package plan

import (
	"fmt"
	"reflect"
)

// SeriesRule is a soak policy on a probe's series (`soak:
// extend_while_rising:`): at the end of the planned time, the step is
// extended by Step while the least-squares slope of the probe named Series
// over its last Window (default 60s) is above SlopePerMin (in the probe's
// unit per minute: bytes for go_memstats_heap_inuse_bytes), until the step
// has run Max in all (its duration included). A target's `metrics:`
// series are probes too, so `series: heap_inuse` names one of them.
type SeriesRule struct {
	Series      string   `yaml:"series,required"`
	SlopePerMin float64  `yaml:"slope_per_min,required"`
	Window      Duration `yaml:"window"`
	Step        Duration `yaml:"step,required"`
	Max         Duration `yaml:"max,required"`
}

// SeriesWindow is r's window, 60s when not given.
func (r *SeriesRule) SeriesWindow() Duration {
	if r.Window.D() > 0 {
		return r.Window
	}
	return Duration{60e9}
}

// validateSeriesRule checks the group's extend_while_rising: it names one
// of the group's probes, and its step and max are sound.
func (g *Group) validateSeriesRule() []error {
	if g.Soak == nil || g.Soak.ExtendWhileRising == nil {
		return nil
	}
	r := g.Soak.ExtendWhileRising
	var errs []error
	at := func(field, format string, args ...any) {
		errs = append(errs, Errorf(g.Pos, fmt.Sprintf("group %s: soak.extend_while_rising.%s", g.ID, field), format, args...))
	}
	found := false
	for _, p := range g.Probes {
		found = found || p.Name == r.Series
	}
	if !found && r.Series != "" {
		at("series", "no probe named %q: name one of the group's probes or its target's metrics series", r.Series)
	}
	if r.Step.D() <= 0 {
		at("step", "must be positive")
	}
	if r.Max.D() < g.Duration.D() {
		at("max", "%s is shorter than duration %s: max is the step's total length, extensions included", r.Max.D(), g.Duration.D())
	}
	return errs
}

// addMetricProbes adds the probes of the group's target's metrics series,
// once: a probe already there with the same source is not added again
// (validation may run twice on one plan).
func (g *Group) addMetricProbes(ps []Probe) {
	for _, p := range ps {
		dup := false
		for _, q := range g.Probes {
			dup = dup || (q.Name == p.Name && reflect.DeepEqual(q.Metric, p.Metric))
		}
		if !dup {
			g.Probes = append(g.Probes, p)
		}
	}
}
