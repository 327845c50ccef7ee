package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// Smallest terminal the console draws in.
const minWidth, minHeight = 40, 12

// wideAt is the width from which the groups list shows titles and results.
const wideAt = 110

// render draws the frame for the current size and mode. Every line is
// exactly the terminal's width, and there are exactly height lines.
func (m *Model) render() {
	m.dirty = false
	m.renders++
	w, h := m.width, m.height
	if w < minWidth || h < minHeight {
		m.frame = fit("benchtui: too small (40x12)", w)
		return
	}
	bodyH := h - 3
	var body []string
	switch m.shownView() {
	case modeHelp:
		body = m.viewHelp(w, bodyH)
	case modeCompare:
		body = m.viewCompare(w, bodyH)
	case modeSlower:
		body = m.viewSlower(w, bodyH)
	case modePicker:
		body = m.viewPicker(w, bodyH)
	default:
		body = m.viewMain(w, bodyH)
	}
	lines := make([]string, 0, h)
	lines = append(lines, m.viewHeader(w))
	lines = append(lines, block(body, w, bodyH)...)
	lines = append(lines, m.viewStatus(w), m.viewKeys(w))
	m.frame = strings.Join(lines, "\n")
}

// block pads or cuts lines to exactly h lines of w columns.
func block(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = fit(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", w)
		}
	}
	return out
}

// viewMain is the groups list beside the selected group's pane.
func (m *Model) viewMain(w, h int) []string {
	lw := m.groupsWidth(w)
	left := block(m.viewGroups(lw, h), lw, h)
	right := block(m.viewDetail(w-lw-3, h), w-lw-3, h)
	sep := m.st.Sep.Render(" │ ")
	out := make([]string, h)
	for i := range out {
		out[i] = left[i] + sep + right[i]
	}
	return out
}

func (m *Model) viewHeader(w int) string {
	left := m.st.Title.Render("benchtui") + " " + m.st.Dim.Render(m.cfg.Plan.Path)
	var right string
	switch {
	case m.quitting:
		right = m.st.States[statePaused].Render("quitting")
	case m.rebuilding != "":
		right = m.st.Info.Render("rebuilding " + m.rebuilding)
	case m.active >= 0:
		gr := m.groups[m.active]
		right = gr.g.ID + " " + m.st.state(gr.state)
	}
	if len(m.queue) > 0 {
		right += m.st.Dim.Render(" +" + itoa(len(m.queue)) + " queued")
	}
	return spread(left, right, w)
}

// spread puts left and right at the two ends of w columns.
func spread(left, right string, w int) string {
	gap := w - len1(left) - len1(right)
	if gap < 1 {
		return fit(left+" "+right, w)
	}
	return left + strings.Repeat(" ", gap) + right
}

func (m *Model) viewStatus(w int) string {
	switch m.mode {
	case modeNote:
		return m.inputLine(m.notePrompt(), m.note.View(), noteHint, w)
	case modeFilter:
		return m.inputLine("filter: ", m.filter.View(), itoa(len(m.shown))+" of "+itoa(len(m.groups))+" · "+filterHint, w)
	}
	dir := m.st.Dim.Render("artifacts: " + m.cfg.Dir)
	msg := m.status
	if m.statusErr {
		msg = m.st.Error.Render(msg)
	}
	room := w - len1(dir) - 2
	if room < 20 || len1(msg) > room {
		return fit(msg, w)
	}
	return spread(msg, dir, w)
}

// inputLine is an open modal's line: its prompt, the text typed, and how
// to leave it.
func (m *Model) inputLine(prompt, input, hint string, w int) string {
	return spread(fit(m.st.Key.Render(prompt)+input, w-len1(hint)-2), m.st.Dim.Render(hint), w)
}

// viewKeys is the footer: as many keys as fit, most useful first; while a
// modal is open, that every key is text.
func (m *Model) viewKeys(w int) string {
	switch m.mode {
	case modeNote, modeFilter:
		return m.st.Dim.Render(fit("typing: keys are text until enter/esc · ctrl+c quits", w))
	case modeHelp, modeCompare, modeSlower, modePicker:
		var parts []string
		for _, h := range m.keys.viewHints(m.mode) {
			parts = append(parts, m.st.Key.Render(h.key)+" "+m.st.Dim.Render(h.word))
		}
		return fitParts(parts, w)
	}
	var parts []string
	for _, b := range m.keys.footerKeys(m.selectedRuns()) {
		parts = append(parts, m.keyHint(b))
	}
	return fitParts(parts, w)
}

// fitParts joins as many of parts as fit in w columns, in order.
func fitParts(parts []string, w int) string {
	used, n := 0, 0
	for _, p := range parts {
		if used+len1(p)+1 > w+1 {
			break
		}
		used += len1(p) + 1
		n++
	}
	return fit(strings.Join(parts[:n], " "), w)
}

// shownView is the view the body draws: the one a note was opened from
// while the note is open.
func (m *Model) shownView() mode {
	if m.mode == modeNote {
		return m.noteBack
	}
	return m.mode
}

// selectedRuns reports whether the selected group's session is the one
// running.
func (m *Model) selectedRuns() bool {
	return m.active >= 0 && m.sel == m.active && m.selected().sess != nil
}

// keyHint is a footer entry: the key and its word; e says how much it
// adds.
func (m *Model) keyHint(b key.Binding) string {
	k := b.Keys()[0]
	word := shortHelp[k]
	if k == "e" {
		word = "+" + dur(extendBy(m.selected().g, m.cfg.Duration))
	}
	return m.st.Key.Render(k) + " " + m.st.Dim.Render(word)
}

func padRight(s string, n int) string {
	if d := n - len1(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}
