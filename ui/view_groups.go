package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// groupsWidth is the width of the groups list: ids and states on a narrow
// screen, titles and last results on a wide one.
func (m *Model) groupsWidth(w int) int {
	if w >= wideAt {
		return 40
	}
	id := 4
	for _, gr := range m.groups {
		id = max(id, len1(gr.g.ID))
	}
	return min(id, 12) + 10 // marker, id, space, state
}

// viewGroups draws the groups list, scrolled to keep the selection in view.
func (m *Model) viewGroups(w, h int) []string {
	per := 1
	if w >= 40 {
		per = 2
	}
	visible := max(h/per, 1)
	first := max(0, min(m.sel-visible/2, len(m.groups)-visible))
	var lines []string
	for i := first; i < len(m.groups) && len(lines)+per <= h; i++ {
		lines = append(lines, m.groupLines(i, w, per)...)
	}
	return lines
}

func (m *Model) groupLines(i, w, per int) []string {
	gr, st := m.groups[i], m.st
	mark := "  "
	if i == m.sel {
		mark = "▸ "
	}
	// The state takes what the id leaves, and at least seven columns
	// ("partial", "stopped").
	state := m.stateText(gr, max(w-len1(mark)-1-len1(gr.g.ID), 7))
	if per == 1 {
		idW := w - len1(mark) - 1 - len1(state)
		line := mark + padRight(fit(gr.g.ID, max(idW, 1)), idW) + " " + state
		return []string{m.selStyle(i, fit(line, w))}
	}
	head := mark + st.Bold.Render(gr.g.ID) + " " + state
	if rps, p99, ok := headline(gr.last); ok {
		head = spread(head, st.Dim.Render(compact(rps)+"/s p99 "+compact(p99)), w)
	}
	sub := "  " + st.Dim.Render(strings.TrimPrefix(gr.g.Title+" · "+gr.g.Runner, " · "))
	return []string{m.selStyle(i, fit(head, w)), fit(sub, w)}
}

// selStyle marks the selected group's first line (in reverse video, so
// it shows without colour too).
func (m *Model) selStyle(i int, line string) string {
	if i == m.sel {
		return m.st.Selected.Render(ansi.Strip(line))
	}
	return line
}
