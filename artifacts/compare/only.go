package compare

import "github.com/benchtui/benchtui/artifacts"

// Only is c cut to the rows of one metric (see MetricNames), its named
// requests' and targets' rows included ("p99[login]", "rss_slope[db]"),
// and without geomeans; the warnings stay. `benchtui bisect` judges a
// revision on these rows alone.
func (c Comparison) Only(metric string) Comparison {
	out := Comparison{Warnings: c.Warnings}
	for _, r := range c.Rows {
		if artifacts.BaseMetric(r.Metric) == metric {
			out.Rows = append(out.Rows, r)
		}
	}
	return out
}
