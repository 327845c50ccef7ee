package compare

import "math"

// geomeans returns, for each metric with a geomean (throughput and the
// latency percentiles) compared in more than one step, a row of the
// geometric means of its base and current figures over those steps, as
// benchstat ends each table. Steps where either figure is not positive are
// left out (a geometric mean has no room for zero). Geomean rows summarise;
// they are never judged.
func geomeans(rows []Row) []Row {
	var out []Row
	for _, m := range metrics {
		if !m.geomean {
			continue
		}
		var logB, logC float64
		n := 0
		for _, r := range rows {
			if r.Metric == m.name && r.Base > 0 && r.Current > 0 {
				logB, logC, n = logB+math.Log(r.Base), logC+math.Log(r.Current), n+1
			}
		}
		if n < 2 {
			continue
		}
		b, c := math.Exp(logB/float64(n)), math.Exp(logC/float64(n))
		out = append(out, Row{Group: "geomean", Metric: m.name, Base: b, Current: c,
			DeltaPct: deltaPct(b, c), Verdict: Same, LowerIsBetter: m.lowerBetter, Test: TestGeomean,
			P: math.NaN(), NBase: n, NCurrent: n, BaseCIPct: math.NaN(), CurrentCIPct: math.NaN()})
	}
	return out
}
