package compare

import (
	"math"

	"github.com/benchtui/benchtui/artifacts"
)

// compareTargets adds the target metrics of each of a step's several
// targets, named in the metric ("rss_slope[api]", "fds_slope[db]"), and
// of their sum ("rss_slope[sum]"), for targets both steps watched. A step
// of one target has its rows under the plain names already.
func compareTargets(out *Comparison, group string, b, c *artifacts.Step, opts CompareOptions) {
	if len(c.Targets) < 2 {
		return
	}
	for _, name := range c.TargetNames() {
		if bt := b.Targets[name]; bt != nil {
			compareTargetFigures(out, group, c.Label, "["+name+"]", bt, c.Targets[name], opts)
		}
	}
	if b.TargetsSum != nil && c.TargetsSum != nil {
		compareTargetFigures(out, group, c.Label, "["+artifacts.TargetSum+"]", b.TargetsSum, c.TargetsSum, opts)
	}
}

// compareTargetFigures adds a row per target metric of two targets'
// figures, whose metric names get suffix.
func compareTargetFigures(out *Comparison, group, label, suffix string, b, c *artifacts.TargetStats, opts CompareOptions) {
	bs, cs := &artifacts.Step{Target: b}, &artifacts.Step{Target: c}
	for _, m := range metrics {
		if m.trend == nil && m.name != MetricFDsPerUnit {
			continue
		}
		bv, _ := m.value(bs)
		cv, _ := m.value(cs)
		row := Row{Group: group, Step: label, Metric: m.name + suffix, Base: bv, Current: cv,
			DeltaPct: deltaPct(bv, cv), LowerIsBetter: m.lowerBetter, Verdict: Same, Test: TestNone,
			P: math.NaN(), BaseCIPct: math.NaN(), CurrentCIPct: math.NaN()}
		if m.judge == byTrend {
			judgeTrend(&row, m, b, c, opts)
		}
		out.Rows = append(out.Rows, row)
	}
}
