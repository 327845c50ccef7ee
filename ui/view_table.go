package ui

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
)

// column is one column of the live table: its header, its width, and its
// rank (the narrowest screens keep the lowest ranks).
type column struct {
	head  string
	width int
	rank  int
	cell  func(x engine.Stats, inflight string) string
}

// tableColumns are the live table's columns for a runner, in screen
// order. Errors, in-flight and dropped outrank p50, p90 and max: on a
// narrow screen a failure or a backlog matters more than the spread.
// For SSE an operation is a received event: the rate is events/s and
// the latency the gap between events.
func tableColumns(runner string) []column {
	rate, lat := "rps", "p"
	if runner == "sse" {
		rate, lat = "ev/s", "gap"
	}
	f := func(v func(engine.Stats) float64) func(engine.Stats, string) string {
		return func(x engine.Stats, _ string) string { return compact(v(x)) }
	}
	return []column{
		{"", 4, 0, nil},
		{rate, 7, 1, f(func(x engine.Stats) float64 { return x.RPS })},
		{lat + "50", 6, 6, f(func(x engine.Stats) float64 { return x.P50 })},
		{lat + "90", 6, 8, f(func(x engine.Stats) float64 { return x.P90 })},
		{lat + "99", 6, 2, f(func(x engine.Stats) float64 { return x.P99 })},
		{"max", 6, 7, f(func(x engine.Stats) float64 { return x.Max })},
		{"errors", 7, 3, func(x engine.Stats, _ string) string { return count(x.Errors) }},
		{"infl", 5, 4, func(_ engine.Stats, in string) string { return in }},
		{"drop", 5, 5, func(x engine.Stats, _ string) string { return count(x.Dropped) }},
	}
}

// fitColumns drops the highest-ranked columns until the rest fit in w.
func fitColumns(cols []column, w int) []column {
	for {
		total, worst := 0, 0
		for i, c := range cols {
			total += c.width
			if c.rank > cols[worst].rank {
				worst = i
			}
		}
		if total <= w || cols[worst].rank <= 2 {
			return cols
		}
		cols = append(cols[:worst:worst], cols[worst+1:]...)
	}
}

// liveTable is the step's figures so far and the last tick's, with as
// many columns as fit.
func (m *Model) liveTable(gr *group, w int) []string {
	names := m.shownNames(gr)
	cols := tableColumns(gr.g.Runner)
	for _, n := range names {
		cols[0].width = min(max(cols[0].width, len(n)+1), maxNameWidth)
	}
	cols = fitColumns(cols, w)
	var head strings.Builder
	for _, c := range cols {
		fmt.Fprintf(&head, "%*s", c.width, c.head)
	}
	lines := []string{m.st.Header.Render(fit(strings.TrimRight(head.String(), " "), w))}
	if !gr.seen {
		return append(lines, m.st.Dim.Render(fit("  (ms; figures appear when it runs; ? explains them)", w)), "")
	}
	s := gr.snap
	row := func(name string, x engine.Stats, inflight string) string {
		var b strings.Builder
		b.WriteString(fit(name, cols[0].width))
		for _, c := range cols[1:] {
			fmt.Fprintf(&b, "%*s", c.width, c.cell(x, inflight))
		}
		return fit(b.String(), w)
	}
	lines = append(lines, row("step", s.Total, ""))
	if len(names) == 0 {
		return append(lines, row("tick", s.Interval, itoa(s.InFlight)))
	}
	for i, n := range names {
		if i == maxNameRows && len(names) > maxNameRows {
			return append(lines, m.st.Dim.Render(fit(fmt.Sprintf("  … %d more names (the artifact has them all)", len(names)-i), w)))
		}
		lines = append(lines, row(n, s.ByName[n], ""))
	}
	return lines
}

// Bounds of the by-name table: its name column and its rows.
const (
	maxNameWidth = 13
	maxNameRows  = 6
)

// shownNames are the named requests the live table lists (d toggles it),
// in name order; none when it is off or the step has no names.
func (m *Model) shownNames(gr *group) []string {
	if !m.byName || !gr.seen || len(gr.snap.ByName) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(gr.snap.ByName))
}

// planSummary says what running the group will do.
func planSummary(g *plan.Group, override time.Duration) string {
	steps := 1
	for _, vs := range g.Sweep {
		steps *= max(len(vs), 1)
	}
	d := g.Duration.D()
	if override > 0 {
		d = override
	}
	var text string
	switch {
	case g.Runner == "spawn":
		text = "cold starts: " + sectionValue(g, "spawn", "cycles", "100") + " cycles, start to ready"
	case g.Runner == "shutdown":
		text = "signal " + sectionValue(g, "shutdown", "signal", "SIGTERM") + " after " +
			sectionValue(g, "shutdown", "after", "10s") + " under load, then the drain"
	case d <= 0:
		text = fmt.Sprintf("%d step%s, each until the runner is done", steps, plural(steps))
	default:
		text = fmt.Sprintf("%d step%s of %s", steps, plural(steps), d)
	}
	if g.Warmup.D() > 0 {
		text += " + " + g.Warmup.D().String() + " warmup"
	}
	return text
}

// startHint says, before the first snapshot, how the group gets going.
func startHint(state string) string {
	switch state {
	case stateQueued:
		return " · queued"
	case stateRunning:
		return " · starting…"
	}
	return " · enter runs it"
}

// sectionValue is a key of a runner's section as the plan wrote it, else
// the runner's default.
func sectionValue(g *plan.Group, section, key, def string) string {
	sec, _ := g.Raw[section].(map[string]any)
	if v, ok := sec[key]; ok && v != nil {
		return fmt.Sprint(v)
	}
	return def
}
