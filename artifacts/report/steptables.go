package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/benchtui/benchtui/artifacts"
)

// probesTable lists each step's probes with min, max, last and slope;
// nil when no step has any.
func probesTable(steps []artifacts.Step) *table {
	t := &table{header: []string{"step", "probe", "min", "max", "last", "slope (/min)", "samples", "errors"},
		right: []bool{false, false, true, true, true, true, true, true}}
	for _, s := range steps {
		for _, name := range slices.Sorted(maps.Keys(s.Probes)) {
			p := s.Probes[name]
			min, max, last, slope := "—", "—", "—", "—"
			if p.Samples > 0 {
				min, max, last = probeNumber(p.Min), probeNumber(p.Max), probeNumber(p.Last)
				slope = probeNumber(p.SlopePerMin)
				if p.SlopePerMin >= 0 {
					slope = "+" + slope
				}
			}
			t.add(s.Label, name, min, max, last, slope, fmt.Sprint(p.Samples), fmt.Sprint(p.Errors))
		}
	}
	if len(t.rows) == 0 {
		return nil
	}
	return t
}

// probeNumber formats a probe's figure: with thousands separators from
// 100 on or when whole, else with four significant digits (a fraction
// such as a ratio keeps its precision).
func probeNumber(v float64) string {
	if math.Abs(v) >= 100 || v == math.Trunc(v) {
		return artifacts.FormatNumber(v)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// windowsTable lists each step's windows: when, how many operations, how
// many failed and their latency. Nil when no step has windows.
func windowsTable(steps []artifacts.Step) *table {
	header := []string{"window", "from (s)", "to (s)", "runs", "requests", "errors", "p50 (ms)", "p99 (ms)", "max (ms)"}
	return stepRowsTable(steps, header, func(s *artifacts.Step) [][]string {
		var rows [][]string
		for _, name := range slices.Sorted(maps.Keys(s.Windows)) {
			w := s.Windows[name]
			rows = append(rows, []string{name, artifacts.TrimFloat(w.FromS), artifacts.TrimFloat(w.ToS), fmt.Sprint(w.Runs), artifacts.FormatNumber(float64(w.Requests)),
				artifacts.FormatNumber(float64(w.Errors)), msCell(w.LatencyMS.P50), msCell(w.LatencyMS.P99), msCell(w.LatencyMS.Max)})
		}
		return rows
	})
}

// targetsTable lays out the resources of each target of steps that
// watched several, a row per target and one for their sum (seed 002's
// per-pod table: memory and CPU at each worker count, summed); nil when
// no step did. The memory is the one a reader of that target goes by:
// the kubelet's working set for a cgroup, PSS for a process tree, else
// RSS, named in its own column.
func targetsTable(steps []artifacts.Step) *table {
	t := &table{header: []string{"step", "target", "memory", "start / peak / end (MB)", "RSS slope, whole run (MB/min)",
		"CPU (cores)", "CPU peak (cores)", "fds start / peak / end"},
		right: []bool{false, false, false, true, true, true, true, true}}
	for _, s := range steps {
		if len(s.Targets) < 2 {
			continue
		}
		for _, name := range s.TargetNames() {
			t.add(append([]string{s.Label, name}, targetCells(s.Targets[name])...)...)
		}
		if s.TargetsSum != nil {
			t.add(append([]string{s.Label, artifacts.TargetSum}, targetCells(s.TargetsSum)...)...)
		}
	}
	if len(t.rows) == 0 {
		return nil
	}
	return t
}

func targetCells(ts *artifacts.TargetStats) []string {
	kind, mem := ts.Memory()
	return []string{kind, rangeMB(mem), slopeCell(ts.RSSSlopeMBPerMin, ts.RSSSlopeSE) + risingNote(ts),
		fmt.Sprintf("%.2f", ts.CPUCores), fmt.Sprintf("%.2f", ts.CPUCoresPeak), rangeCount(ts.FDs)}
}
