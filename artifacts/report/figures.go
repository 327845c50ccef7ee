package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
)

// figuresTable lays out a single-step group as "Measurement | Result" rows,
// like the seed's soak reference table.
func figuresTable(s *artifacts.Step) *table {
	t := &table{header: []string{"Measurement", "Result"}, right: []bool{false, true}}
	if s.Label != "" {
		t.add("Step", s.Label)
	}
	t.add("Operations", artifacts.FormatNumber(float64(s.Requests)))
	t.add("Duration", artifacts.TrimFloat(s.DurationS)+" s"+pausedNote(s))
	t.add("Throughput", artifacts.FormatNumber(s.ThroughputRPS)+" ops/s")
	l := s.LatencyMS
	t.add("Latency p50 / p90 / p99", FormatMS(l.P50)+" / "+FormatMS(l.P90)+" / "+FormatMS(l.P99))
	t.add("Latency p99.9 / max", FormatMS(l.P999)+" / "+FormatMS(l.Max))
	if s.ServiceMS.P99 > 0 && s.ServiceMS != s.LatencyMS {
		t.add("Service time p50 / p99", FormatMS(s.ServiceMS.P50)+" / "+FormatMS(s.ServiceMS.P99))
	}
	t.add("Errors", fmt.Sprintf("%s (%s)", artifacts.FormatNumber(float64(s.Errors)),
		FormatValue(compare.MetricErrorRate, compare.Ratio(s.Errors, s.Requests))))
	if s.Dropped > 0 {
		t.add("Dropped", artifacts.FormatNumber(float64(s.Dropped)))
	}
	for _, k := range slices.Sorted(maps.Keys(s.ErrorKinds)) {
		if s.ErrorKinds[k] > 0 {
			t.add("Errors: "+k, artifacts.FormatNumber(float64(s.ErrorKinds[k])))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Counters)) {
		t.add(k, artifacts.FormatNumber(float64(s.Counters[k])))
	}
	if s.Target != nil {
		addTargetRows(t, s.Target)
	}
	return t
}

func pausedNote(s *artifacts.Step) string {
	if s.PausedS > 0 {
		return " (+" + artifacts.TrimFloat(s.PausedS) + " s paused)"
	}
	return ""
}

// addTargetRows adds the soak figures of a watched target.
func addTargetRows(t *table, ts *artifacts.TargetStats) {
	t.add("RSS start / peak / end", rangeMB(ts.RSSMB)+" MB")
	t.add("RSS slope, whole run"+spanNote(ts.SpanS), slopeCell(ts.RSSSlopeMBPerMin, ts.RSSSlopeSE)+" MB/min"+risingNote(ts))
	t.add("RSS slope, tail"+spanNote(ts.TailWindowS), slopeCell(ts.RSSTailSlopeMBMin, ts.RSSTailSlopeSE)+" MB/min")
	t.add("fds start / peak / end", rangeCount(ts.FDs))
	if ts.FDsPerUnit != 0 {
		t.add("fds per unit", artifacts.TrimFloat(ts.FDsPerUnit))
	}
	t.add("Target CPU", fmt.Sprintf("%.2f cores", ts.CPUCores))
	if ts.CPUCoresPeak > 0 { // not kept in older artifacts
		t.add("Target CPU peak", fmt.Sprintf("%.2f cores", ts.CPUCoresPeak))
	}
}

// spanNote is a slope's window in its row's name: " (59 s)".
func spanNote(s float64) string {
	if s <= 0 {
		return ""
	}
	return " (" + artifacts.TrimFloat(math.Round(s)) + " s)"
}

// slopeCell is a slope with its standard error: "+129.21 ± 6.10".
func slopeCell(v, se float64) string {
	if se <= 0 {
		return fmt.Sprintf("%+.2f", v)
	}
	return fmt.Sprintf("%+.2f ± %.2f", v, se)
}

// risingNote marks a target whose RSS is still rising (RSSRising).
func risingNote(ts *artifacts.TargetStats) string {
	if ts.RSSRising {
		return " ⚠ still rising"
	}
	return ""
}

// rangeMB is a range of megabytes, unit-less (the column or row says MB).
func rangeMB(r artifacts.Range) string {
	return fmt.Sprintf("%.1f / %.1f / %.1f", r.Start, r.Peak, r.End)
}

func rangeCount(r artifacts.Range) string {
	return artifacts.TrimFloat(r.Start) + " / " + artifacts.TrimFloat(r.Peak) + " / " + artifacts.TrimFloat(r.End)
}

// sweepTargetTable lays out the target's resources per step of a sweep, or
// returns nil when no step watched a target.
func sweepTargetTable(steps []artifacts.Step) *table {
	t := &table{header: []string{"step", "RSS start / peak / end (MB)", "RSS slope, whole run (MB/min)",
		"tail slope (MB/min)", "fds start / peak / end", "CPU (cores)"},
		right: []bool{false, true, true, true, true, true}}
	for _, s := range steps {
		ts := s.Target
		if ts == nil {
			continue
		}
		t.add(s.Label, rangeMB(ts.RSSMB), slopeCell(ts.RSSSlopeMBPerMin, ts.RSSSlopeSE)+risingNote(ts),
			slopeCell(ts.RSSTailSlopeMBMin, ts.RSSTailSlopeSE), rangeCount(ts.FDs), fmt.Sprintf("%.2f", ts.CPUCores))
	}
	if len(t.rows) == 0 {
		return nil
	}
	return t
}

// markdown writes the section under a "## id — title" heading.
func (s *section) markdown(sb *strings.Builder) {
	fmt.Fprintf(sb, "\n## %s — %s\n\n%s\n", s.id, compare.OrNone(s.title), s.meta)
	fmt.Fprintf(sb, "\n**Ended:** %s\n", s.ending)
	if soak := s.soakLines(); len(soak) > 0 {
		sb.WriteString("\n")
		for _, l := range soak {
			sb.WriteString("- " + l + "\n")
		}
	}
	for _, t := range s.tables {
		if t.title != "" {
			sb.WriteString("\n### " + t.title + "\n")
		}
		sb.WriteString("\n")
		t.t.markdown(sb)
	}
	mdList(sb, "Warnings", s.warnings)
	mdList(sb, "Checks", s.checks)
	mdList(sb, "Events", s.events)
	mdList(sb, "Notes", s.notes)
}

func mdList(sb *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	sb.WriteString("\n**" + title + "**\n\n")
	for _, it := range items {
		sb.WriteString("- " + it + "\n")
	}
}
