package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// onNavKey moves the selection through the listed groups (the filter's,
// when one is set) and reports whether msg was a navigation key. Moving
// the selection stops it from following a run-all.
func (m *Model) onNavKey(msg tea.KeyPressMsg) bool {
	k, n := m.keys, len(m.shown)
	if n == 0 {
		return false
	}
	pos, page := m.shownPos(), m.pageSize()
	switch {
	case key.Matches(msg, k.Up):
		pos = (pos + n - 1) % n
	case key.Matches(msg, k.Down):
		pos = (pos + 1) % n
	case key.Matches(msg, k.First):
		pos = 0
	case key.Matches(msg, k.Last):
		pos = n - 1
	case key.Matches(msg, k.PrevPage):
		pos = max(pos-page, 0)
	case key.Matches(msg, k.NextPage):
		pos = min(pos+page, n-1)
	default:
		return false
	}
	m.sel, m.follow = m.shown[pos], false
	return true
}

// shownPos is the selection's place among the listed groups (0 when the
// filter hides it).
func (m *Model) shownPos() int {
	for i, g := range m.shown {
		if g == m.sel {
			return i
		}
	}
	return 0
}

// pageSize is how many groups the list shows at once.
func (m *Model) pageSize() int {
	rows := m.height - 3 - 1 // header, status, footer; the scroll line
	if m.width >= wideAt {
		rows /= 2
	}
	return max(rows, 1)
}
