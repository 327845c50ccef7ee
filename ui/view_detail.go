package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/guptarohit/asciigraph"
)

// viewDetail draws the selected group: what it is and where it stands,
// the live table, the sparklines, the RSS banner, and the baseline.
func (m *Model) viewDetail(w, h int) []string {
	gr := m.selected()
	lines := []string{m.titleLine(gr, w), m.stepLine(gr, w), m.progressLine(gr, w)}
	lines = append(lines, m.liveTable(gr, w)...)
	banner := append(append(m.banner(gr, w), m.actionLine(gr, w)...), m.endingLines(gr, w)...)
	avail := h - len(lines) - len(banner)
	// Probe rows (view_probes.go) go before the charts, leaving the
	// baseline pane its four best rows.
	probes := m.probeRows(gr, w, avail-4)
	avail -= len(probes)
	// Sparklines get what the baseline pane needs (up to seven lines)
	// leaves: two pairs, each a caption and a chart of two to eleven rows.
	// Short of room, the pane keeps four lines (its best rows) and the
	// charts two rows each; shorter still, the charts go.
	pair := min((avail-min(m.baselineWant(gr), 7))/2, 12)
	if pair < 3 {
		pair = min((avail-min(m.baselineWant(gr), 4))/2, 3)
	}
	if pair < 3 {
		pair = 0 // too short: the baseline matters more than the charts
	}
	if pair > 0 {
		lines = append(lines, m.perfGraphs(gr, w, pair)...)
		lines = append(lines, m.resourceGraphs(gr, w, pair)...)
	}
	lines = append(lines, probes...)
	lines = append(lines, banner...)
	return append(lines, m.baselinePane(gr, w, h-len(lines))...)
}

func (m *Model) titleLine(gr *group, w int) string {
	left := m.st.Bold.Render(gr.g.ID) + m.st.Dim.Render(" · "+gr.g.Runner)
	if gr.g.Title != "" {
		left = m.st.Bold.Render(gr.g.ID) + " — " + gr.g.Title + m.st.Dim.Render(" · "+gr.g.Runner)
	}
	state := m.stateText(gr, w/2)
	return spread(fit(left, w-len1(state)-1), state, w)
}

func (m *Model) stepLine(gr *group, w int) string {
	st := m.st
	if gr.state == stateFailed && gr.err != "" {
		return st.Error.Render(fit("failed: "+gr.err, w))
	}
	if !gr.seen {
		text := planSummary(gr.g, m.cfg.Duration) + startHint(gr.state)
		if rps, p99, ok := headline(gr.last); ok {
			text += st.Dim.Render(fmt.Sprintf(" · last %s rps, p99 %s ms", compact(rps), compact(p99)))
		}
		return fit(text, w)
	}
	s := gr.snap
	text := fmt.Sprintf("step %d/%d %s · %s", s.Step, s.Steps, s.StepLabel, s.Phase)
	if s.State == engine.StatePaused {
		text += " · " + st.state(statePaused) + st.Dim.Render(" (p resumes)")
	} else if s.Paused > 0 {
		text += st.Dim.Render(" · " + dur(s.Paused) + " paused")
	}
	return fit(text, w)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// progressLine is a bar over the current phase with elapsed and remaining.
func (m *Model) progressLine(gr *group, w int) string {
	s := gr.snap
	if !gr.seen || s.Planned <= 0 || s.Phase == engine.PhaseDone || gr.state == stateDone {
		return ""
	}
	frac := min(float64(s.Elapsed)/float64(s.Planned), 1)
	right := fmt.Sprintf(" %s/%s · %s left", dur(s.Elapsed), dur(s.Planned), dur(s.Planned-s.Elapsed))
	if s.Count > 0 { // a counted step: Planned is only its cap
		frac = min(float64(s.Total.Requests)/float64(s.Count), 1)
		right = fmt.Sprintf(" %d/%d ops · %s", s.Total.Requests, s.Count, dur(s.Elapsed))
	}
	barW := max(w-len1(right)-2, 4)
	done := int(frac*float64(barW) + 0.5)
	bar := m.st.BarDone.Render(strings.Repeat("█", done)) + m.st.BarLeft.Render(strings.Repeat("░", barW-done))
	return fit("▕"+bar+"▏"+right, w)
}

// perfGraphs are the latency (p50 and p99) and throughput sparklines side
// by side, over the step.
func (m *Model) perfGraphs(gr *group, w, lines int) []string {
	var p50, p99, rps []float64
	for _, p := range gr.snap.Series {
		p50, p99, rps = append(p50, p.P50MS), append(p99, p.P99MS), append(rps, p.RPS)
	}
	lw, rw := w/2-1, w-w/2-1
	// An SSE step's operations are events: its latency is the gap between
	// events and its rate events per second (as in its table).
	latName, rateName := "p50/p99 ms (log)", "throughput rps"
	if gr.g.Runner == "sse" {
		latName, rateName = "gap p50/p99 ms (log)", "events/s"
	}
	capL := fmt.Sprintf("%s %s/%s", latName, compact(gr.snap.Total.P50), compact(gr.snap.Total.P99))
	capR := rateName + " " + compact(gr.snap.Total.RPS)
	if !gr.seen {
		p50, p99, rps, capL, capR = nil, nil, nil, latName, rateName
	}
	left := graph([][]float64{p50, p99}, []asciigraph.AnsiColor{asciigraph.Blue, asciigraph.Red}, axis{log: true}, lw, lines-1, m.st)
	right := graph([][]float64{rps}, []asciigraph.AnsiColor{asciigraph.Green}, axis{}, rw, lines-1, m.st)
	return sideBySide(m.st.Dim.Render(fit(capL, lw)), m.st.Dim.Render(fit(capR, rw)), left, right)
}

// resourceGraphs are the watched target's RSS and open files, or
// benchtui's own when the group has no target.
func (m *Model) resourceGraphs(gr *group, w, lines int) []string {
	s := gr.snap
	who, cur := s.TargetName, s.Target
	var rss, fds []float64
	for _, p := range s.Series {
		rss, fds = append(rss, p.RSSMB), append(fds, p.FDs)
	}
	if cur == nil {
		who, cur, rss, fds = "benchtui (self)", s.Self, nil, gr.selfFDs
		for _, p := range s.Series {
			rss = append(rss, p.SelfMB)
		}
	}
	if !gr.seen || who == "" {
		who = gr.g.Target
	}
	if who == "" {
		who = "benchtui (self)"
	}
	slope := liveSlope(s.RSS)
	if name, c, r, f, ok := gr.otherTarget(); ok {
		who, cur, rss, fds = name, c, r, f
	}
	if len(gr.g.Targets) > 1 && who != gr.g.SoakTarget() {
		slope = "" // the snapshot's slope is the soak target's
	}
	lw, rw := w/2-1, w-w/2-1
	capL, capR := who+" RSS MB", who+" fds"+gr.targetTag()
	if cur != nil && gr.seen {
		capL = fmt.Sprintf("%s RSS %s MB%s%s", who, compact(cur.RSSMB), slope, memoryOfKind(cur))
		capR = fmt.Sprintf("%s fds %d%s", who, cur.FDs, gr.targetTag())
	}
	left := graph([][]float64{rss}, []asciigraph.AnsiColor{asciigraph.Yellow}, axis{}, lw, lines-1, m.st)
	right := graph([][]float64{fds}, []asciigraph.AnsiColor{asciigraph.Cyan}, axis{}, rw, lines-1, m.st)
	return sideBySide(m.st.Dim.Render(fit(capL, lw)), m.st.Dim.Render(fit(capR, rw)), left, right)
}

// memoryOfKind is the memory a target is read by beside its RSS: a
// cgroup's working set or a process tree's PSS, "" for a process.
func memoryOfKind(p *engine.ProcSample) string {
	switch {
	case p.WorkingSetMB > 0:
		return " · working set " + compact(p.WorkingSetMB) + " MB"
	case p.PSSMB > 0:
		return " · PSS " + compact(p.PSSMB) + " MB"
	}
	return ""
}

func sideBySide(capL, capR string, left, right []string) []string {
	out := []string{capL + "  " + capR}
	for i := range left {
		out = append(out, left[i]+"  "+right[i])
	}
	return out
}

// liveSlope is the whole-run RSS slope so far in a chart's caption:
// " +131±9/min (45 s)", the figure and window the artifact will keep.
func liveSlope(r engine.RSSTrend) string {
	if r.SpanS <= 0 {
		return ""
	}
	return fmt.Sprintf(" %+.1f±%.1f/min (%s)", r.Slope, r.SE, dur(time.Duration(r.SpanS*float64(time.Second))))
}

// banner warns while the RSS still climbs (the test the artifact's
// rss_rising applies, over the samples so far), and says what the soak
// policy did once it extended the step.
func (m *Model) banner(gr *group, w int) []string {
	if soak := m.soakLines(gr, w); soak != nil {
		return soak
	}
	if !gr.seen || !gr.snap.RSS.Rising || gr.state == stateDone {
		return nil
	}
	who := gr.snap.TargetName
	if gr.snap.Target == nil {
		who = "benchtui (self)"
	}
	r := gr.snap.RSS
	text := fmt.Sprintf(" ⚠ %s RSS still rising: %s · e extends ", who, artifacts.SlopeText(r.Slope, r.SE, r.SpanS))
	return []string{m.st.Banner.Render(fit(text, w))}
}

// stepLabel is the step the baseline pane compares: the running one, else
// the last one measured.
func stepLabel(gr *group) string {
	switch {
	case gr.seen && gr.snap.StepLabel != "":
		return gr.snap.StepLabel
	case gr.last != nil && len(gr.last.Steps) > 0:
		return gr.last.Steps[len(gr.last.Steps)-1].Label
	case gr.base != nil && len(gr.base.Steps) > 0:
		return gr.base.Steps[len(gr.base.Steps)-1].Label
	}
	return ""
}
