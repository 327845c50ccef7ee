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
	// Marker, id, space, state; on a narrow screen the pane keeps
	// paneMin columns while the list takes a third or more.
	return min(min(id, 12)+10, max(w/3, w-3-paneMin))
}

// paneMin is the width the selected group's pane keeps beside the list
// while the list can still take a third of the screen.
const paneMin = 35

// viewGroups draws the listed groups, scrolled to keep the selection in
// view; when some are out of view or filtered out, the last line says
// which are shown ("12–24 of 40", "/quic 3 of 10").
func (m *Model) viewGroups(w, h int) []string {
	per := 1
	if w >= 40 {
		per = 2
	}
	n := len(m.shown)
	cut := n*per > h
	rows := h
	if cut || m.filterText != "" || n == 0 {
		rows = h - 1
	}
	visible := max(rows/per, 1)
	first := max(0, min(m.shownPos()-visible/2, n-visible))
	var lines []string
	for j := first; j < n && len(lines)+per <= rows; j++ {
		lines = append(lines, m.groupLines(m.shown[j], w, per)...)
	}
	if rows == h {
		return lines
	}
	to := first + len(lines)/per
	for len(lines) < rows {
		lines = append(lines, "")
	}
	where := m.listWhere(first, to, cut, " of ")
	if len1(where) > w {
		where = m.listWhere(first, to, cut, "/")
	}
	return append(lines, m.st.Dim.Render(fit(where, w)))
}

// listWhere says which of the groups the list shows: the filter, and the
// range when it is cut ("12–24 of 40 ↑↓", "12–24/40 ↑↓" with of "/").
func (m *Model) listWhere(from, to int, cut bool, of string) string {
	text := ""
	if m.filterText != "" {
		text = "/" + m.filterText + " "
	}
	switch {
	case len(m.shown) == 0:
		return text + "no match"
	case cut:
		return text + itoa(from+1) + "–" + itoa(to) + of + itoa(len(m.shown)) + arrows(from > 0, to < len(m.shown))
	}
	return text + itoa(len(m.shown)) + of + itoa(len(m.groups))
}

// arrows point to where more groups are.
func arrows(above, below bool) string {
	switch {
	case above && below:
		return " ↑↓"
	case above:
		return " ↑"
	case below:
		return " ↓"
	}
	return ""
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
