// Package report writes artifacts for people: the markdown and HTML
// report of runs (tables, SVG charts), a comparison as text, markdown or
// JSON, and a step's percentile distribution.
package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
)

// section is one group of a report: built once from the group's runs,
// rendered as markdown or HTML.
type section struct {
	id, title string
	meta      string           // one line on the newest run: id, start, host, tool, file
	ending    artifacts.Ending // how the newest run ended
	tables    []titled
	warnings  []string // of the before/after comparison
	checks    []string
	events    []string
	notes     []string
	newest    *artifacts.Artifact // for the HTML charts
	base      *artifacts.Artifact // the oldest run, overlaid on the charts; nil with one run
}

// titled is a table with an optional heading above it.
type titled struct {
	title string
	t     *table
}

// Report renders arts as a markdown report in the shape of the seed reports:
// per group a heading "## <id> — <title>"; a sweep (several steps) as one row
// per step (the swept value, p50, p99, ops/s, errors); a single step as a
// table of figures; a step with target stats adds RSS start/peak/end, RSS
// slope over the run and over the tail, and fds; two or more runs of a group
// add a before/after table of the oldest against the newest with deltas and
// verdicts; checks, events and notes are listed under the tables.
func Report(arts []*artifacts.Artifact) string {
	var sb strings.Builder
	secs := buildSections(arts)
	sb.WriteString("# benchtui report\n\n")
	fmt.Fprintf(&sb, "%d artifacts of %d groups.\n", len(arts), len(secs))
	for _, s := range secs {
		s.markdown(&sb)
	}
	return sb.String()
}

// buildSections groups arts by group id (natural order), runs oldest first.
func buildSections(arts []*artifacts.Artifact) []section {
	byGroup := make(map[string][]*artifacts.Artifact)
	for _, a := range arts {
		if a != nil {
			byGroup[a.Group.ID] = append(byGroup[a.Group.ID], a)
		}
	}
	ids := make([]string, 0, len(byGroup))
	for id := range byGroup {
		ids = append(ids, id)
	}
	artifacts.SortNatural(ids)
	secs := make([]section, 0, len(ids))
	for _, id := range ids {
		runs := byGroup[id]
		sort.SliceStable(runs, func(i, j int) bool { return runs[i].Run.Started.Before(runs[j].Run.Started) })
		secs = append(secs, buildSection(runs))
	}
	return secs
}

func buildSection(runs []*artifacts.Artifact) section {
	a := runs[len(runs)-1]
	s := section{id: a.Group.ID, title: a.Group.Title, meta: runMeta(a), ending: artifacts.Outcome(a), newest: a, notes: a.Notes}
	if len(a.Steps) == 1 {
		s.tables = append(s.tables, titled{t: figuresTable(&a.Steps[0])})
	} else if len(a.Steps) > 1 {
		s.tables = append(s.tables, titled{t: sweepTable(a.Steps)})
		if t := sweepTargetTable(a.Steps); t != nil {
			s.tables = append(s.tables, titled{title: "Target resources", t: t})
		}
	}
	if t := targetsTable(a.Steps); t != nil {
		s.tables = append(s.tables, titled{title: "Targets", t: t})
	}
	if t := byNameTable(a.Steps); t != nil {
		s.tables = append(s.tables, titled{title: "By request", t: t})
	}
	if t := windowsTable(a.Steps); t != nil {
		s.tables = append(s.tables, titled{title: "Windows", t: t})
	}
	if t := statusTable(a.Steps); t != nil {
		s.tables = append(s.tables, titled{title: "Status codes", t: t})
	}
	if t := probesTable(a.Steps); t != nil {
		s.tables = append(s.tables, titled{title: "Probes", t: t})
	}
	if t := serverTable(a.Steps); t != nil {
		s.tables = append(s.tables, titled{title: "Server log and profiles", t: t})
	}
	if len(runs) > 1 {
		old := runs[0]
		s.base = old
		c := compare.Compare([]*artifacts.Artifact{old}, []*artifacts.Artifact{a}, compare.CompareOptions{})
		s.tables = append(s.tables, titled{
			title: fmt.Sprintf("Before/after: %s → %s", stamp(old), stamp(a)),
			t:     beforeAfterTable(c, len(a.Steps) > 1)})
		s.warnings = c.Warnings
	}
	s.profileTables(s.base, a)
	multi := len(a.Steps) > 1
	for _, st := range a.Steps {
		prefix := ""
		if multi {
			prefix = st.Label + ": "
		}
		for _, c := range st.Checks {
			s.checks = append(s.checks, prefix+checkLine(c))
		}
		for _, e := range st.Events {
			s.events = append(s.events, prefix+fmt.Sprintf("t=%ss %s: %s", artifacts.TrimFloat(e.T), e.Kind, e.Note))
		}
	}
	return s
}

// stamp is when a run started, to the second: two runs a minute apart
// must not read as the same time.
func stamp(a *artifacts.Artifact) string {
	return a.Run.Started.UTC().Format("2006-01-02 15:04:05 UTC")
}

func runMeta(a *artifacts.Artifact) string {
	parts := []string{"**Run:** " + compare.OrNone(a.Run.ID), "**Started:** " + stamp(a)}
	if h := compare.HostString(a.Run.Host); h != "" {
		parts = append(parts, "**Host:** "+h)
	}
	if a.Run.ToolVersion != "" {
		parts = append(parts, "**Tool:** "+a.Run.ToolVersion)
	}
	parts = append(parts, "**Artifact:** `"+artifacts.FileName(a.Group.ID, a.Run.Started)+"`")
	if a.Run.Partial {
		parts = append(parts, "**partial run**")
	}
	return strings.Join(parts, " · ")
}

// checkLine is a check with its mark, limit and value, as the console
// and the headless summary show it.
func checkLine(c artifacts.Check) string {
	if !c.OK {
		return "✗ " + artifacts.FailedLine(c)
	}
	line := "✓ " + c.Name + ": " + artifacts.ValueAndLimits(c)
	if c.Note != "" {
		line += " (" + c.Note + ")"
	}
	return line
}

// soakLines are the soak verdicts of the ending, each prefixed with its
// step when the run has several.
func (s *section) soakLines() []string {
	var out []string
	for _, v := range s.ending.Soaks {
		line := "✓ " + v.String()
		if v.Leak {
			line = "⚠ " + v.String()
		}
		if len(s.newest.Steps) > 1 {
			line = v.Step + ": " + line
		}
		out = append(out, line)
	}
	return out
}

// sweepParam returns the name of the one parameter every step sets, or "".
func sweepParam(steps []artifacts.Step) string {
	if len(steps[0].Params) != 1 {
		return ""
	}
	for name := range steps[0].Params {
		for _, s := range steps[1:] {
			if _, ok := s.Params[name]; !ok || len(s.Params) != 1 {
				return ""
			}
		}
		return name
	}
	return ""
}

// sweepTable lays out a sweep as one row per step, the swept value first.
// An open-loop sweep (a "rate" parameter, or drops) adds dropped operations
// and the most operations in flight, as the seed's arrival-rate table does.
func sweepTable(steps []artifacts.Step) *table {
	param := sweepParam(steps)
	open := param == "rate"
	for _, s := range steps {
		open = open || s.Dropped > 0
	}
	t := &table{header: []string{"step", "p50 (ms)", "p99 (ms)", "ops/s", "errors"},
		right: []bool{param != "", true, true, true, true, true, true}}
	if param != "" {
		t.header[0] = param
	}
	if open {
		t.header = append(t.header, "dropped", "max in-flight")
	}
	for _, s := range steps {
		first := s.Label
		if param != "" {
			first = artifacts.TrimFloat(s.Params[param])
		}
		cells := []string{first, msCell(s.LatencyMS.P50), msCell(s.LatencyMS.P99),
			artifacts.FormatNumber(s.ThroughputRPS), artifacts.FormatNumber(float64(s.Errors))}
		if open {
			cells = append(cells, artifacts.FormatNumber(float64(s.Dropped)), strconv.Itoa(maxInFlight(s.Series)))
		}
		t.add(cells...)
	}
	return t
}

func maxInFlight(series []artifacts.Point) int {
	m := 0
	for _, p := range series {
		m = max(m, p.InFlight)
	}
	return m
}

// msCell formats milliseconds for a table whose header carries the unit,
// as the seed reports do: "0.030", "1.24", "19.9", "128.7".
func msCell(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// beforeAfterTable lays out a comparison for a report: a row per metric
// with its unit in a column of its own, so that the before and after
// cells are plain numbers, each beside its spread (± the median's
// interval, or the slope's standard error).
func beforeAfterTable(c compare.Comparison, withStep bool) *table {
	t := &table{header: []string{"metric", "unit", "before", "±", "after", "±", "Δ", "verdict"},
		right: []bool{false, false, true, true, true, true, true, false}}
	if withStep {
		t.header = append([]string{"step"}, t.header...)
		t.right = append([]bool{false}, t.right...)
	}
	for _, r := range c.Rows {
		base, cur, unit := numbersIn(r)
		cells := []string{r.Metric, unit, base, spreadCell(r, r.BaseCIPct, r.BaseSE), cur,
			spreadCell(r, r.CurrentCIPct, r.CurrentSE), FormatDelta(r.DeltaPct), VerdictMark(r)}
		if withStep {
			cells = append([]string{r.Step}, cells...)
		}
		t.add(cells...)
	}
	return t
}

// numbersIn formats a row's two figures in one unit, the one the larger
// would be shown in ("950 ms" and "1.02 s" both in s), and names it.
func numbersIn(r compare.Row) (base, cur, unit string) {
	big := r.Base
	if math.Abs(r.Current) > math.Abs(big) {
		big = r.Current
	}
	_, unit = splitUnit(FormatValue(r.Metric, big))
	scale := 1.0
	if unit == "s" && isLatency(r.Metric) {
		scale = 1000 // FormatValue shows latencies of 1 s and more in seconds
	}
	return numberOf(r, r.Base, scale), numberOf(r, r.Current, scale), unit
}

// numberOf is v as FormatValue shows it (scaled), without its unit.
func numberOf(r compare.Row, v, scale float64) string {
	if scale != 1 {
		return strconv.FormatFloat(v/scale, 'f', 2, 64)
	}
	n, _ := splitUnit(FormatValue(r.Metric, v))
	return n
}

// splitUnit splits "8.10 ms" into "8.10" and "ms", "0.5%" into "0.5" and
// "%"; a bare number has no unit.
func splitUnit(s string) (num, unit string) {
	if n, u, ok := strings.Cut(s, " "); ok {
		return n, u
	}
	if n, ok := strings.CutSuffix(s, "%"); ok {
		return n, "%"
	}
	return s, ""
}

func isLatency(metric string) bool {
	switch artifacts.BaseMetric(metric) {
	case compare.MetricP50, compare.MetricP90, compare.MetricP99, compare.MetricP999, compare.MetricMax:
		return true
	}
	return false
}

// spreadCell is a figure's spread: "3%" for a median (its interval's
// half-width), the standard error for a slope, "" when the row has none.
func spreadCell(r compare.Row, ciPct, se float64) string {
	switch {
	case r.Test == compare.TestTrend && se > 0:
		return compare.TrendNumber(r.Metric, se)
	case r.Test != compare.TestMannWhitney:
		return ""
	case math.IsInf(ciPct, 1):
		return "∞"
	case math.IsNaN(ciPct):
		return "?"
	}
	return fmt.Sprintf("%.0f%%", ciPct)
}
