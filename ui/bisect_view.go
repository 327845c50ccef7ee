package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	artcompare "github.com/benchtui/benchtui/artifacts/compare"
)

// Columns of a commit's line: its mark, hash and bound, before the
// subject and the verdict.
const (
	bisectMarkW  = 5
	bisectHashW  = 12
	bisectBoundW = 4
	bisectLeadW  = bisectMarkW + bisectHashW + bisectBoundW + 3
)

// View draws the bisection: a header, the commits, the probe in progress
// or the verdict, a status line and the keys. Every line is exactly the
// terminal's width, and there are exactly height lines.
func (m *BisectModel) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "benchtui bisect"
	return v
}

func (m *BisectModel) render() string {
	w, h := m.width, m.height
	if w < minWidth || h < minHeight {
		return fit("benchtui: too small (40x12)", w)
	}
	bodyH := h - 3
	body := m.bodyLines(w, bodyH)
	if m.help {
		body = m.bisectHelp(w)
	}
	lines := make([]string, 0, h)
	lines = append(lines, m.bisectHeader(w))
	lines = append(lines, block(body, w, bodyH)...)
	lines = append(lines, m.bisectStatus(w), m.bisectKeys(w))
	return strings.Join(lines, "\n")
}

// clean is text from outside (a commit's subject, a build's error) made
// safe for the terminal: escape sequences and control characters go.
func clean(s string) string { return strings.Map(dropControl, ansi.Strip(s)) }

func (m *BisectModel) bisectHeader(w int) string {
	left := m.st.Title.Render("benchtui bisect")
	if m.started {
		left += m.st.Dim.Render(fmt.Sprintf(" group %s, judged on %s, %d runs a revision",
			clean(m.rng.Group), clean(m.rng.Figure), m.rng.Runs))
	}
	var right string
	switch {
	case m.quitting:
		right = m.st.States[statePaused].Render("quitting")
	case m.end != nil && m.end.Err != "":
		right = m.st.Error.Render("stopped")
	case m.end != nil:
		right = m.st.Bold.Render("done")
	case m.probing != noProbe:
		right = m.st.States[stateRunning].Render(fmt.Sprintf("probe %d of ≤%d", m.probe.N, m.probe.N-1+m.left))
	}
	return spread(fit(left, w-len1(right)-1), right, w)
}

func (m *BisectModel) bisectStatus(w int) string {
	if m.status != "" {
		if m.statusErr {
			return fit(m.st.Error.Render(m.status), w)
		}
		return fit(m.status, w)
	}
	if !m.started {
		return fit("", w)
	}
	return m.st.Dim.Render(fit("artifacts: "+clean(m.rng.Dir)+" (a folder bisect-HASH for each probe)", w))
}

func (m *BisectModel) bisectKeys(w int) string {
	hint := func(k, word string) string { return m.st.Key.Render(k) + " " + m.st.Dim.Render(word) }
	quit := "quit"
	if m.running() {
		quit = "stop and quit"
	}
	return fitParts([]string{hint("q", quit), hint("?", "help"), hint("ctrl+c", "at once")}, w)
}

// bodyLines are the commits, then the probe in progress or the verdict.
func (m *BisectModel) bodyLines(w, h int) []string {
	if !m.started {
		if m.end != nil {
			return m.endLines(w)
		}
		return []string{m.st.Dim.Render("reading the commits…")}
	}
	tail := m.probeLines(w)
	if m.end != nil {
		tail = m.endLines(w)
	}
	rows := len(m.rng.Commits) + 1
	listH := min(rows, max(h-1-len(tail), min(rows, 3)))
	return append(append(m.commitLines(w, listH), ""), tail...)
}

// commitLines are the good revision and the commits after it, oldest
// first, in h lines: a window around the probe (else the verdict, else
// the bad bound) when they do not all fit, "⋮" saying how many are out.
func (m *BisectModel) commitLines(w, h int) []string {
	total := len(m.rng.Commits) + 1
	from, to := window(total, m.focus()+1, h)
	lines := make([]string, 0, to-from)
	for r := from; r < to; r++ {
		lines = append(lines, m.commitLine(r-1, w))
	}
	if from > 0 {
		lines[0] = m.st.Dim.Render(fmt.Sprintf("  ⋮ %d older", from+1))
	}
	if to < total {
		lines[len(lines)-1] = m.st.Dim.Render(fmt.Sprintf("  ⋮ %d newer", total-to+1))
	}
	return lines
}

// window is the h rows of total to show with focus near their middle.
func window(total, focus, h int) (from, to int) {
	if total <= h {
		return 0, total
	}
	from = min(max(focus-h/2, 0), total-h)
	return from, from + h
}

// focus is the revision the list keeps in view.
func (m *BisectModel) focus() int {
	switch {
	case m.probing != noProbe:
		return m.probing
	case m.end != nil && m.end.First >= 0:
		return m.end.First
	}
	return m.bad
}

// commit is revision i, -1 the good one.
func (m *BisectModel) commit(i int) BisectCommit {
	if i < 0 {
		return m.rng.Good
	}
	return m.rng.Commits[i]
}

// commitLine is revision i's line: its mark, hash, bound, subject and
// what its probe found; dim when the search has ruled it out.
func (m *BisectModel) commitLine(i, w int) string {
	c := m.commit(i)
	vw := min(40, (w-bisectLeadW)*3/5)
	sw := w - bisectLeadW - vw - 1
	mark, bound, verdict := m.markOf(i), m.boundOf(i), m.verdictOf(i, vw)
	if i < m.good || i > m.bad {
		return m.st.Dim.Render(fit(padRight(mark, bisectMarkW)+" "+clean(c.Hash)+" "+padRight(bound, bisectBoundW)+" "+
			fit(clean(c.Subject), sw)+" "+ansi.Strip(verdict), w))
	}
	return fit(padRight(m.styleMark(mark), bisectMarkW)+" "+clean(c.Hash)+" "+padRight(m.styleBound(bound), bisectBoundW)+" "+
		fit(clean(c.Subject), sw)+" "+verdict, w)
}

// markOf is revision i's mark: ▶ being probed, ✓ judged good (the good
// revision too), ✗ judged worse, ~skip not judged, blank not probed.
func (m *BisectModel) markOf(i int) string {
	if i == m.probing {
		return "▶"
	}
	j, ok := m.judged[i]
	switch {
	case !ok:
		return ""
	case j.Outcome == BisectWorse:
		return "✗"
	case j.Outcome == BisectSkipped:
		return "~skip"
	}
	return "✓"
}

func (m *BisectModel) styleMark(mark string) string {
	switch mark {
	case "▶":
		return m.st.Info.Render(mark)
	case "✓":
		return m.st.Better.Render(mark)
	case "✗":
		return m.st.Worse.Render(mark)
	}
	return m.st.Dim.Render(mark)
}

// boundOf tags the search's bounds: the first worse is after good, at
// bad or before it.
func (m *BisectModel) boundOf(i int) string {
	switch i {
	case m.good:
		return "good"
	case m.bad:
		return "bad"
	}
	return ""
}

func (m *BisectModel) styleBound(b string) string {
	if b == "bad" {
		return m.st.Worse.Render(b)
	}
	return m.st.Better.Render(b)
}

// verdictOf is what revision i's probe found, styled, in w columns.
func (m *BisectModel) verdictOf(i, w int) string {
	if i == m.probing {
		return m.st.Info.Render(fit(m.probeWord(), w))
	}
	j, ok := m.judged[i]
	switch {
	case !ok:
		return ""
	case j.Outcome == BisectBase:
		return m.st.Dim.Render(fit(fmt.Sprintf("base · %d runs", m.rng.GoodRuns), w))
	case j.Outcome == BisectSkipped || j.Row == nil:
		return m.st.Dim.Render(fit(clean(j.Why), w))
	}
	return m.st.verdict(j.Row.Verdict, fit(rowText(*j.Row), w))
}

// rowText is a deciding row in a few words: "p50 ms 5.31 → 10.6 +100%
// worse".
func rowText(r artcompare.Row) string {
	word := r.Verdict
	if r.Untested {
		word = "cannot tell"
	}
	return fmt.Sprintf("%s %s → %s %s %s", rowLabel(r.Metric), metricValue(r.Metric, r.Base),
		metricValue(r.Metric, r.Current), paneDelta(r), word)
}

// probeWord is where the probe is: building, or its run.
func (m *BisectModel) probeWord() string {
	switch {
	case m.probe.Building:
		return "building…"
	case m.live == nil:
		return "starting…"
	}
	if run := runOf(m.live.StepLabel); run != "" {
		return run + "…"
	}
	return "running…"
}

// runOf is the run of a repeated step's live label ("concurrency=4 ·
// run 2/3": "run 2/3"), "" for a step run once.
func runOf(label string) string {
	k := strings.LastIndex(label, " · ")
	if k < 0 || !strings.HasPrefix(label[k+len(" · "):], "run ") {
		return ""
	}
	return clean(label[k+len(" · "):])
}
