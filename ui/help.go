package ui

import (
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// glossary says what the screen's words and marks mean, for the help.
var glossary = []string{
	"step: figures over the step's measured time so far · tick: the last 250 ms",
	"rps: operations done per second (SSE: ev/s, events received per second)",
	"p50…max: ms of latency, from when it was due (SSE gap: time between events)",
	"errors: failed · infl: in flight now · drop: arrivals not sent, slots full",
	"worse / better: a significant change from the baseline · ~: within noise",
	"✓ pass · ✗ N checks failed · ⚠ leak suspected · stopped / partial: cut short",
	"soak: extends the step while RSS rises, up to its max; e adds the soak's step (else a quarter of the step), which counts toward that max",
	"n and / work in every view; a note on a group never run waits for its run",
}

// viewHelp lists every key in two columns when they fit, then what the
// figures and marks mean; ↑/↓ scroll it.
func (m *Model) viewHelp(w, h int) []string {
	lines := []string{m.st.Title.Render("Keys") + m.st.Dim.Render(" — ↑/↓ scroll, n note, / find, any other key goes back")}
	lines = append(lines, m.helpKeyLines(w)...)
	lines = append(lines, m.st.Title.Render("What the screen says"))
	for _, g := range glossary {
		for i, l := range strings.Split(ansi.Wordwrap(g, w-2, ""), "\n") {
			lead := "  "
			if i > 0 {
				lead = "    "
			}
			lines = append(lines, fit(lead+l, w))
		}
	}
	lines = append(lines, "", m.st.Dim.Render(fit("Every key's effect lands in the artifact as an event. Artifacts: "+
		m.cfg.Dir+" · log: "+filepath.Join(m.cfg.Dir, "benchtui.log"), w)))
	m.scroll = min(m.scroll, max(len(lines)-h, 0))
	return lines[m.scroll:]
}

// helpKeyLines are the keys and what they do, in two columns from 80
// columns on.
func (m *Model) helpKeyLines(w int) []string {
	var items []string
	for _, b := range m.keys.helpKeys() {
		items = append(items, m.st.Key.Render(padRight(b.Help().Key, 7))+" "+b.Help().Desc)
	}
	if w < 80 {
		out := make([]string, len(items))
		for i, it := range items {
			out[i] = fit("  "+it, w)
		}
		return out
	}
	half, colW := (len(items)+1)/2, w/2
	out := make([]string, half)
	for i := range half {
		out[i] = padRight(fit("  "+items[i], colW-1), colW)
		if i+half < len(items) {
			out[i] += fit(items[i+half], w-colW)
		}
	}
	return out
}
