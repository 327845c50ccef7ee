package ui

import (
	"strings"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// maxEndingLines bounds the pane's lines on how a run ended: the failed
// checks beyond it are behind c.
const maxEndingLines = 4

// ended reports whether the group shows how its last run ended rather than
// a state word: nothing of it runs or waits, and there is a last result.
func (gr *group) ended() bool {
	return gr.last != nil && (gr.state == stateDone || gr.state == stateIdle)
}

// stateText is the group's state for the list and the title line: the
// ending's tags (✓ pass, ✗ 2, ⚠ leak, stopped, partial) once its last run
// ended, as many as fit in room columns, else the state word.
func (m *Model) stateText(gr *group, room int) string {
	if !gr.ended() {
		return m.st.state(gr.state)
	}
	var out []string
	used := -1
	for _, t := range gr.ending.Tags() {
		if used+1+len1(t) > room && len(out) > 0 {
			break
		}
		used += 1 + len1(t)
		out = append(out, m.st.tag(t))
	}
	return strings.Join(out, " ")
}

// endingLines say how the group's last run ended, under the live table:
// the ending in words, each failed check with its value and limit, and
// the soak's verdict; nothing while it runs.
func (m *Model) endingLines(gr *group, w int) []string {
	if !gr.ended() {
		return nil
	}
	word := "last run "
	if gr.state == stateDone {
		word = "ended "
	}
	lines := []string{fit(m.st.Bold.Render(word)+m.st.tag(gr.ending.String()), w)}
	details := gr.ending.Details(len(gr.last.Steps) > 1)
	for i, d := range details {
		if i == maxEndingLines-1 && len(details) > maxEndingLines {
			lines = append(lines, m.st.Dim.Render(fit("… "+itoa(len(details)-i)+" more — c lists them", w)))
			break
		}
		for _, l := range wrapAt(d, ": ", w) {
			lines = append(lines, m.st.tag(l))
		}
	}
	return lines
}

// soakLines say, while a step runs, what its soak policy did so far:
// "auto-extended 2/4 (+2m0s), RSS +26.0 MB/min: leak suspected" while RSS
// still rises after an extension, the same verdict the artifact will hold.
// Nil until the policy first extends the step.
func (m *Model) soakLines(gr *group, w int) []string {
	if !gr.seen || gr.ended() {
		return nil
	}
	n, added := artifacts.AutoExtensions(gr.snap.Events)
	if n == 0 {
		return nil
	}
	_, slope := gr.g.SoakRule()
	v := artifacts.SoakVerdict{Extensions: n, Possible: possibleExtensions(gr.g), Added: added,
		SlopeMBPerMin: gr.snap.RSSSlope, ThresholdMBPerMin: slope, Leak: gr.snap.RSSRising}
	style := m.st.Dim
	if v.Leak {
		style = m.st.Banner
	}
	var lines []string
	for _, l := range wrapAt(v.String(), ": ", w) {
		lines = append(lines, style.Render(fit(l, w)))
	}
	return lines
}

// possibleExtensions is how many steps the group's soak policy may add:
// max is the step's whole length.
func possibleExtensions(g *plan.Group) int {
	if g.Soak == nil || g.Soak.ExtendWhileRSSRising == nil {
		return 0
	}
	r := g.Soak.ExtendWhileRSSRising
	return artifacts.PossibleExtensions(r.Max.D(), g.Duration.D(), r.Step.D())
}

// wrapAt splits text after sep into two lines when it is wider than w,
// the second indented, so that a verdict is never cut off on a narrow
// screen.
func wrapAt(text, sep string, w int) []string {
	i := strings.LastIndex(text, sep)
	if len1(text) <= w || i < 0 {
		return []string{text}
	}
	return []string{text[:i+len(sep)-1], "  " + text[i+len(sep):]}
}

// tag styles an ending tag or line by its mark: ✓ green, ✗ red, ⚠ and a
// cut run yellow. The mark itself carries the meaning without colour.
func (s Styles) tag(t string) string {
	switch {
	case strings.HasPrefix(t, "✓"):
		return s.Better.Render(t)
	case strings.HasPrefix(t, "✗"):
		return s.Worse.Render(t)
	case strings.HasPrefix(t, "⚠"), strings.HasPrefix(t, "stopped"), strings.HasPrefix(t, "partial"):
		return s.States[statePaused].Render(t)
	}
	return t
}
