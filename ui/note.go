package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func (m *Model) openNote() tea.Cmd {
	gr := m.selected()
	if gr.sess == nil {
		m.setStatus(gr.g.ID+": run it first; a note goes into its artifact", true)
		return nil
	}
	m.mode = modeNote
	m.note.Reset()
	m.note.SetWidth(max(m.width-20, 10))
	return m.note.Focus()
}

// onNoteKey edits the note; enter records it in the session (and rewrites
// the artifact when the session has ended), esc drops it.
func (m *Model) onNoteKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.mode = modeMain
		m.note.Blur()
		return nil
	case msg.String() == "enter":
		m.mode = modeMain
		m.note.Blur()
		text := strings.TrimSpace(m.note.Value())
		gr := m.selected()
		if text == "" || gr.sess == nil {
			return nil
		}
		sess := gr.sess
		note := control(func() (string, bool) {
			sess.Note(text)
			return sess.Group().ID + ": note added", true
		})
		if m.active == m.sel {
			return note
		}
		return tea.Sequence(note, export(m.cfg.Sessions, m.cfg.Dir, m.sel, sess, true))
	}
	var cmd tea.Cmd
	m.note, cmd = m.note.Update(msg)
	return cmd
}
