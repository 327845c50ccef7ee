package artifacts

import (
	"fmt"
	"math"
	"time"
)

// SeriesVerdict is what a soak policy on a probe's series
// (soak.extend_while_rising) found at the end of the step: the series'
// slope over the policy's window (the probe's tail_slope_per_min, NaN
// when the window held too few reads) against the policy's threshold.
type SeriesVerdict struct {
	Name                   string
	SlopePerMin, Threshold float64
	// Rising: the slope is known and above the threshold.
	Rising bool
}

// String is e.g. "heap_inuse +3.1e+07/min (> 5e+06)".
func (v SeriesVerdict) String() string {
	if math.IsNaN(v.SlopePerMin) {
		return v.Name + " slope unknown (too few reads in the window)"
	}
	rel := "≤"
	if v.Rising {
		rel = ">"
	}
	return fmt.Sprintf("%s %+.4g/min (%s %g)", v.Name, v.SlopePerMin, rel, v.Threshold)
}

// soakVerdict judges the step s that the soak policy extended n times
// (adding added): RSS's tail slope against the RSS rule's (or the
// default), and, when the policy watches a probe's series, that series'
// tail slope against its rule's. Either still rising is a leak.
func soakVerdict(a *Artifact, s *Step, n int, added time.Duration) SoakVerdict {
	rule := soakRuleOf(a.Group.Config)
	extended := added + operatorExtended(s.Events)
	v := SoakVerdict{Step: s.Label, Extensions: n, Possible: rule.budget.possible(n, extended), Added: added,
		ThresholdMBPerMin: rule.slope}
	if t := soakTargetStats(s, a.Group.Config); t != nil {
		v.SlopeMBPerMin, v.WindowS = t.RSSTailSlopeMBMin, t.TailWindowS
		v.Leak = v.SlopeMBPerMin > v.ThresholdMBPerMin
	}
	if sr, ok := seriesRuleOf(a.Group.Config); ok {
		sv := SeriesVerdict{Name: sr.series, SlopePerMin: math.NaN(), Threshold: sr.slope}
		if p, ok := s.Probes[sr.series]; ok && p.TailSlopePerMin != nil {
			sv.SlopePerMin = *p.TailSlopePerMin
			sv.Rising = sv.SlopePerMin > sv.Threshold
		}
		v.Series = &sv
		v.Leak = v.Leak || sv.Rising
		if v.Possible == 0 {
			v.Possible = sr.budget.possible(n, extended)
		}
	}
	return v
}

// seriesRule is the part of soak.extend_while_rising the ending needs.
type seriesRule struct {
	series string
	slope  float64
	budget extensionBudget
}

// seriesRuleOf reads soak.extend_while_rising back from a group config;
// false when the policy has none.
func seriesRuleOf(cfg map[string]any) (seriesRule, bool) {
	soak, _ := cfg["soak"].(map[string]any)
	rule, _ := soak["extend_while_rising"].(map[string]any)
	name, _ := rule["series"].(string)
	slope, ok := number(rule["slope_per_min"])
	if name == "" || !ok {
		return seriesRule{}, false
	}
	return seriesRule{series: name, slope: slope, budget: budgetOf(cfg, rule)}, true
}

// StepLabeled is the step of a with the label, or nil.
func (a *Artifact) StepLabeled(label string) *Step {
	for i := range a.Steps {
		if a.Steps[i].Label == label {
			return &a.Steps[i]
		}
	}
	return nil
}

// HeapProfiles are the names of the heap profiles the step saved at the
// start and the end of its measured phase (the target's `pprof:`),
// beside the artifact; ok when it saved both, so that
// `go tool pprof -diff_base START END` shows what the step added.
func (s *Step) HeapProfiles() (start, end string, ok bool) {
	start, end = s.Profiles["heap_start"], s.Profiles["heap_end"]
	return start, end, start != "" && end != ""
}
