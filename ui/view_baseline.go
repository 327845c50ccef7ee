package ui

import (
	"fmt"
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	artcompare "github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/artifacts/report"
)

// baselinePane puts the step's figures beside the baseline's, with the
// delta coloured by the comparison's verdict (red worse, green better, dim
// within noise).
func (m *Model) baselinePane(gr *group, w, h int) []string {
	st := m.st
	if h < 1 || gr.base != nil && h < 2 {
		return nil
	}
	if gr.base == nil {
		return []string{st.Dim.Render(fit("no baseline: no earlier whole "+gr.g.ID+" run (b picks one)", w))}
	}
	title := st.Title.Render("baseline ") + st.Dim.Render(baseName(gr.basePath)+" · "+
		gr.base.Run.Started.Local().Format("01-02 15:04"))
	rows := paneRows(gr)
	keep := soakRSSRow(gr, rows)
	if h == 2 && len(rows) > 0 { // the title and the best row, no header
		shown, more := paneCut(rows, 1, keep)
		if more > 0 {
			title += st.Dim.Render(fmt.Sprintf(" · %d more: c", more))
		}
		return []string{fit(title, w), m.st.compareLine(shown[0], w)}
	}
	room := h - 2 // under the title and the header
	shown, more := paneCut(rows, room, keep)
	lines := []string{fit(title, w), m.paneHead(more, len(shown) == room, w)}
	for _, r := range shown {
		lines = append(lines, m.st.compareLine(r, w))
	}
	if more > 0 && len(shown) < room {
		lines = append(lines, st.Dim.Render(fit(fmt.Sprintf("… %d more — c compares every step", more), w)))
	}
	if len(rows) == 0 {
		lines = append(lines, st.Dim.Render(fit("nothing to compare yet for step "+stepName(stepLabel(gr)), w)))
	}
	return lines
}

// paneHead is the pane's header; when rows are left out and no line is
// left to say so (full), it says so.
func (m *Model) paneHead(more int, full bool, w int) string {
	if more == 0 || !full {
		return m.st.Header.Render(compareHead("", w))
	}
	text := strings.TrimRight(compareHead("", w), " ")
	return m.st.Header.Render(text) + m.st.Dim.Render(fit(fmt.Sprintf("  … %d more: c", more), w-len1(text)))
}

// paneCut is the rows a pane with room lines for them shows, and how
// many it leaves out. When they do not all fit, a line says how many more
// (one row fewer), unless the pane has room for a single row; the row
// keep (-1 for none) is never the one left out.
func paneCut(rows []paneRow, room, keep int) ([]paneRow, int) {
	if len(rows) <= room {
		return rows, 0
	}
	n := max(room-1, min(room, 1))
	out := append([]paneRow(nil), rows[:n]...)
	if keep >= n && n > 0 {
		out[n-1] = rows[keep]
	}
	return out, len(rows) - n
}

// soakRSSRow is the index in rows of the RSS slope of the target a soak
// policy watches, -1 for a group without one or no such row: what a soak
// is for, so the pane never leaves it out.
func soakRSSRow(gr *group, rows []paneRow) int {
	name := gr.g.SoakTarget()
	if soakStep(gr) <= 0 || name == "" {
		return -1
	}
	metric := artcompare.MetricRSSSlope
	if len(gr.g.Targets) > 1 && name != gr.g.Target { // the first's are the plain rows
		metric += "[" + name + "]"
	}
	for i, r := range rows {
		if r.Metric == metric {
			return i
		}
	}
	return -1
}

// baselineWant is how many lines the baseline pane would fill: one without
// a baseline, else its title, header and rows.
func (m *Model) baselineWant(gr *group) int {
	if gr.base == nil {
		return 1
	}
	return 2 + max(len(paneRows(gr)), 1)
}

// paneRow is one figure of the pane; current is blank until there is a
// comparison.
type paneRow struct {
	artcompare.Row
	hasCurrent bool
}

// paneRows are the comparison's rows of the step in view, else the
// baseline's own figures of that step.
func paneRows(gr *group) []paneRow {
	label := stepLabel(gr)
	var out []paneRow
	if gr.cmp != nil {
		for _, r := range gr.cmp.Rows {
			if r.Step == label {
				out = append(out, paneRow{r, true})
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, s := range gr.base.Steps {
		if s.Label != label {
			continue
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"throughput_rps", s.ThroughputRPS}, {"p50", s.LatencyMS.P50}, {"p90", s.LatencyMS.P90},
			{"p99", s.LatencyMS.P99}, {"max", s.LatencyMS.Max}} {
			out = append(out, paneRow{artcompare.Row{Metric: f.name, Base: f.v, Verdict: artcompare.Same}, false})
		}
	}
	return out
}

func (st Styles) compareLine(r paneRow, w int) string {
	cur, delta, word := "…", "", ""
	if r.hasCurrent {
		cur, delta, word = metricValue(r.Metric, r.Current), paneDelta(r.Row), report.VerdictMark(r.Row)
	}
	name := fit(rowLabel(r.Metric), 11)
	if w < wideCompare { // the current figure, the delta and the verdict matter most
		return fit(name+fmt.Sprintf("%8s", cur)+st.verdict(r.Verdict, fmt.Sprintf("%8s %s", delta, word)), w)
	}
	line := name + fmt.Sprintf("%9s%9s", metricValue(r.Metric, r.Base), cur)
	tail := st.verdict(r.Verdict, fmt.Sprintf("%9s  %-7s", delta, word))
	if w >= wideBasis && r.hasCurrent {
		tail += st.Dim.Render(" " + basisText(r.Row))
	}
	return fit(line+tail, w)
}

// rowLabel is the console's name for a comparison row's metric, with the
// named request or target it is of: "p99 ms[login]".
func rowLabel(metric string) string {
	base, rest, _ := strings.Cut(metric, "[")
	name := metricLabel[base]
	if name == "" {
		name = base
	}
	if rest != "" {
		name += "[" + rest
	}
	return name
}

// paneDelta is a row's change as the tables give it (absolute for a
// slope), compacted to fit its column.
func paneDelta(r artcompare.Row) string {
	if d := report.DeltaCell(r); !strings.HasSuffix(d, "%") {
		num, _, _ := strings.Cut(d, " ")
		return num
	}
	return deltaText(r.DeltaPct)
}

// basisText says which figures a row compares and how sure the verdict is:
// "median · p=0.008 n=30 blocks of 1s", "fit · p=0.000 n=30+30 spans 29+29
// s", "whole step" (never judged); for an untested row ("?"), why.
func basisText(r artcompare.Row) string {
	if r.Untested && len(r.Notes) > 0 {
		return r.Notes[len(r.Notes)-1]
	}
	switch r.Test {
	case artcompare.TestMannWhitney:
		return "median · " + report.Basis(r)
	case artcompare.TestTrend:
		return "fit · " + report.Basis(r)
	}
	return "whole step"
}

// wideBasis is the width from which comparison rows say what they rest on.
const wideBasis = 80

// wideCompare is the width from which comparison rows show the baseline's
// figure beside the current one.
const wideCompare = 46

// compareHead is the header of comparison rows, as compareLine lays them
// out at w columns.
func compareHead(last string, w int) string {
	if w < wideCompare {
		return fit(fmt.Sprintf("%-11s%8s%8s %s", "figure", "current", "delta", last), w)
	}
	if w >= wideBasis && last != "" {
		return fit(fmt.Sprintf("%-11s%9s%9s%9s  %-7s %s", "figure", "baseline", "current", "delta", last, "basis"), w)
	}
	return fit(fmt.Sprintf("%-11s%9s%9s%9s  %s", "figure", "baseline", "current", "delta", last), w)
}

func stepName(label string) string {
	if label == "" {
		return "(single step)"
	}
	return label
}

// viewCompare is the full-screen comparison of every step of the group.
func (m *Model) viewCompare(w, h int) []string {
	gr, st := m.selected(), m.st
	lines := []string{st.Title.Render("Compare "+gr.g.ID) + st.Dim.Render(" — esc goes back, ↑/↓ scroll")}
	switch {
	case gr.base == nil:
		lines = append(lines, st.Dim.Render("no baseline (b picks one)"))
	case gr.cmp == nil:
		lines = append(lines, st.Dim.Render("baseline "+baseName(gr.basePath)+"; nothing measured to compare yet"))
	default:
		lines = append(lines, st.Dim.Render("baseline "+baseName(gr.basePath)+" · current "+currentName(gr)))
		lines = append(lines, m.st.compareAll(*gr.cmp, w)...)
	}
	if gr.last != nil {
		lines = append(lines, "", st.Title.Render("Steps of the latest result"+partialWord(gr.last.Run.Partial)))
		lines = append(lines, m.stepsTable(gr.last, w)...)
		lines = append(lines, st.Bold.Render("Ended ")+st.tag(gr.ending.String()))
		for _, d := range gr.ending.Details(len(gr.last.Steps) > 1) {
			lines = append(lines, st.tag(fit(d, w)))
		}
	}
	m.scroll = min(m.scroll, max(len(lines)-h, 0))
	return lines[m.scroll:]
}

func currentName(gr *group) string {
	if gr.sess != nil && gr.state != stateDone && gr.state != stateFailed {
		return "this run so far"
	}
	return "this run"
}

func (st Styles) compareAll(c artcompare.Comparison, w int) []string {
	var lines []string
	step := "\x00"
	for _, r := range c.Rows {
		if r.Step != step {
			step = r.Step
			lines = append(lines, "", st.Bold.Render("step "+stepName(step)),
				st.Header.Render(compareHead("verdict", w)))
		}
		lines = append(lines, st.compareLine(paneRow{r, true}, w))
	}
	if len(c.Rows) == 0 {
		lines = append(lines, st.Dim.Render("no rows: no step in common"))
	}
	for _, note := range c.Footnotes() {
		lines = append(lines, st.Dim.Render(fit("note: "+note, w)))
	}
	for _, warn := range c.Warnings {
		lines = append(lines, st.Dim.Render(fit("warning: "+warn, w)))
	}
	return lines
}

// stepsTable lists an artifact's steps, as the headless summary does.
func (m *Model) stepsTable(a *artifacts.Artifact, w int) []string {
	// The step's label takes what the figures leave, 8 to 16 columns: at
	// 80 columns no figure's header is cut.
	sw := min(max(w-65, 8), 16)
	format := "%-" + itoa(sw) + "s%9s%8s%8s%8s%8s%8s%8s%8s"
	head := fmt.Sprintf(format, "step", "requests", "rps", "p50", "p90", "p99", "max", "errors", "dropped")
	lines := []string{m.st.Header.Render(fit(head, w))}
	for _, s := range a.Steps {
		lines = append(lines, fit(fmt.Sprintf(format, fit(stepName(s.Label), sw-1), count(s.Requests),
			compact(s.ThroughputRPS), compact(s.LatencyMS.P50), compact(s.LatencyMS.P90), compact(s.LatencyMS.P99),
			compact(s.LatencyMS.Max), count(s.Errors), count(s.Dropped)), w))
	}
	return append(lines, strings.Repeat(" ", 0))
}
