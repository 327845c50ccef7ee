package engine

import (
	"fmt"
	"math"

	"github.com/benchtui/benchtui/runners/watch"
)

// soakExtendSeries applies the soak policy on a probe's series
// (plan.SeriesRule) at the end of the planned time: while the probe's
// tail slope is above the rule's, extend by its step up to its max. A
// slope needs minSlopeSamples reads in the window to be believed.
func (st *stepRun) soakExtendSeries() bool {
	g := st.s.group
	if g.Soak == nil || g.Soak.ExtendWhileRising == nil {
		return false
	}
	rule := g.Soak.ExtendWhileRising
	st.mu.Lock()
	set, extended := st.probes, st.extended
	st.mu.Unlock()
	perMin, reads := set.TailSlope(rule.Series, rule.SeriesWindow().D())
	if reads < minSlopeSamples || math.IsNaN(perMin) {
		return false
	}
	limit := max(0, rule.Max.D()-st.spec.Duration)
	if st.s.opts.Duration > 0 {
		limit = 0 // a quick try (--duration) is never extended
	}
	if !watch.ShouldExtend(perMin, rule.SlopePerMin, extended, rule.Step.D(), limit) {
		return false
	}
	return st.extend(rule.Step.D(), fmt.Sprintf("%s rising %.4g/min > %g/min", rule.Series, perMin, rule.SlopePerMin))
}
