package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
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
		if gr.seen && gr.snap.RSS.Rising {
			return m.st.state(gr.state) + " " + m.st.tag("⚠")
		}
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

// soakLines say, while a step of a group with a soak policy runs, what
// the policy did and will do: "auto-extended 2/3 · +10s · next check in
// 4s", what e added by hand, and the RSS tail slope once it rises ("leak
// suspected: tail slope (last 60 s) +26.0 MB/min" after an extension).
// Nil without a policy.
func (m *Model) soakLines(gr *group, w int) []string {
	step := soakStep(gr)
	if !gr.seen || gr.ended() || step <= 0 {
		return nil
	}
	s := gr.snap
	n, added := artifacts.AutoExtensions(s.Events)
	parts := []string{"soak: auto-extended " + itoa(n) + "/" + itoa(n+int(s.SoakLeft/step))}
	if n > 0 {
		parts = append(parts, "+"+dur(added))
	}
	if byHand := s.Extended - added; byHand > 0 {
		parts = append(parts, "e added +"+dur(byHand))
	}
	parts = append(parts, nextCheck(s, step))
	style := m.st.Dim
	tail := artifacts.TailSlopeText(s.RSS.Tail, s.RSS.TailWindowS)
	switch {
	case s.RSS.TailAbove && n > 0:
		parts, style = append(parts, "leak suspected: "+tail), m.st.Banner
	case s.RSS.TailAbove:
		parts, style = append(parts, "rising: "+tail), m.st.Banner
	}
	var lines []string
	// The verdict comes before its figure, so a narrow screen cuts the
	// figure, not the verdict.
	for _, l := range joinFit(parts, " · ", w) {
		lines = append(lines, style.Render(fit(l, w)))
	}
	return lines
}

// soakStep is the group's soak extension step, zero without a policy.
func soakStep(gr *group) time.Duration {
	if gr.g.Soak == nil || gr.g.Soak.ExtendWhileRSSRising == nil {
		return 0
	}
	return gr.g.Soak.ExtendWhileRSSRising.Step.D()
}

// nextCheck says when the soak policy next looks at the RSS slope: at
// the end of the planned measured time, while it may still extend.
func nextCheck(s engine.Snapshot, step time.Duration) string {
	switch {
	case s.SoakLeft < step:
		return "no extension left"
	case s.Phase != engine.PhaseMeasure:
		return "checks at the end of the step"
	}
	return "next check in " + dur(s.Planned-s.Elapsed)
}

// joinFit joins parts with sep into as few lines of w columns as it can,
// breaking only between parts, so no part is cut on a narrow screen.
func joinFit(parts []string, sep string, w int) []string {
	var lines []string
	cur := ""
	for _, p := range parts {
		switch {
		case cur == "":
			cur = p
		case len1(cur+sep+p) <= w:
			cur += sep + p
		default:
			lines, cur = append(lines, cur), "  "+p
		}
	}
	return append(lines, cur)
}

// wrapAt splits text into lines of w columns at word boundaries, the
// lines after the first indented, so that a verdict is never cut off on
// a narrow screen. It prefers one break after sep when that is enough.
func wrapAt(text, sep string, w int) []string {
	if len1(text) <= w {
		return []string{text}
	}
	if i := strings.LastIndex(text, sep); i >= 0 && len1(text[:i+len(sep)-1]) <= w && len1(text[i+len(sep):])+2 <= w {
		return []string{text[:i+len(sep)-1], "  " + text[i+len(sep):]}
	}
	lines := strings.Split(ansi.Wordwrap(text, max(w-2, 1), ""), "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = "  " + lines[i]
	}
	return lines
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
