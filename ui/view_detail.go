package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
)

// viewDetail draws the selected group: what it is and where it stands,
// the live table, the charts, the RSS banner, and the baseline.
func (m *Model) viewDetail(w, h int) []string {
	gr := m.selected()
	lines := []string{m.titleLine(gr, w), m.stepLine(gr, w), m.progressLine(gr, w)}
	lines = append(lines, m.liveTable(gr, w)...)
	banner := append(append(m.banner(gr, w), m.actionLine(gr, w)...), m.endingLines(gr, w)...)
	banner = append(banner, m.watchLines(gr, w)...)
	avail := h - len(lines) - len(banner)
	// The charts, the probe rows (view_probes.go) and the baseline pane
	// share what is left (view_charts.go).
	probes := m.probeRows(gr, w, avail)
	room := m.shareRoom(gr, avail, len(probes))
	probes = probes[:room.probes]
	lines = append(lines, m.charts(gr, w, room)...)
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

// perfGraphs are the latency (p50 and p99) and throughput charts side
// by side, over the step, with the baseline's behind them.
func (m *Model) perfGraphs(gr *group, w, lines int) []string {
	st := m.st
	var pts []artifacts.Point
	if gr.seen {
		pts = gr.snap.Series
	}
	base := baseSeries(gr)
	span := timeSpan(gr, base)
	lat := chart{ax: axis{log: true}, span: span, cur: []curve{pointsCurve(pts, p50Of, st.P50), pointsCurve(pts, p99Of, st.P99)}}
	rate := chart{span: span, cur: []curve{pointsCurve(pts, rpsOf, st.Rate)}}
	// An SSE step's operations are events: its latency is the gap between
	// events and its rate events per second (as in its table).
	latName, rateName := "p50/p99 ms (log)", "throughput rps"
	if gr.g.Runner == "sse" {
		latName, rateName = "gap p50/p99 ms (log)", "events/s"
	}
	capL := fmt.Sprintf("%s %s/%s", latName, compact(gr.snap.Total.P50), compact(gr.snap.Total.P99))
	capR := rateName + " " + compact(gr.snap.Total.RPS)
	if !gr.seen {
		capL, capR = latName, rateName
	}
	if len(base) > 0 {
		lat.base = []curve{pointsCurve(base, p50Of, st.Base), pointsCurve(base, p99Of, st.Base)}
		rate.base = []curve{pointsCurve(base, rpsOf, st.Base)}
	}
	return m.pair(capL, capR, lat, rate, w, lines)
}

// resourceGraphs are the watched target's RSS and open files, or
// benchtui's own when the group has no target, with the baseline's
// behind them where it has the same figures.
func (m *Model) resourceGraphs(gr *group, w, lines int) []string {
	s, st := gr.snap, m.st
	who, cur := s.TargetName, s.Target
	rss, fds := pointsCurve(s.Series, rssOf, st.RSS), pointsCurve(s.Series, fdsOf, st.FDs)
	baseRSS, baseFDs := rssOf, fdsOf
	if cur == nil {
		who, cur, baseRSS, baseFDs = "benchtui (self)", s.Self, selfRSSOf, nil
		rss, fds = pointsCurve(s.Series, selfRSSOf, st.RSS), curve{v: gr.selfFDs, style: st.FDs}
	}
	if !gr.seen || who == "" {
		who = gr.g.Target
	}
	if who == "" {
		who = "benchtui (self)"
	}
	slope := liveSlope(s.RSS)
	if name, c, r, f, ok := gr.otherTarget(); ok { // its trail has no times and no baseline
		who, cur, rss, fds, baseRSS, baseFDs = name, c, curve{v: r, style: st.RSS}, curve{v: f, style: st.FDs}, nil, nil
	}
	if len(gr.g.Targets) > 1 && who != gr.g.SoakTarget() {
		slope = "" // the snapshot's slope is the soak target's
	}
	capL, capR := who+" RSS MB", who+" fds"+gr.targetTag()
	if cur != nil && gr.seen {
		capL = fmt.Sprintf("%s RSS %s MB%s%s", who, compact(cur.RSSMB), slope, memoryOfKind(cur))
		capR = fmt.Sprintf("%s fds %d%s", who, cur.FDs, gr.targetTag())
	}
	left, right := m.timeChart(gr, rss, baseRSS), m.timeChart(gr, fds, baseFDs)
	return m.pair(capL, capR, left, right, w, lines)
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
	// The verdict and its figure first: a narrow pane cuts the key hint.
	text := fmt.Sprintf(" ⚠ %s RSS still rising %+.1f±%.1f MB/min (whole run, %.0f s) · e extends ", who, r.Slope, r.SE, r.SpanS)
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
