package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// The note and the filter are modals: while one is open it owns every key
// (ctrl+c aside) until enter or esc, so text typed into it can never run,
// stop or quit anything.

// How to leave each modal, on its line.
const (
	noteHint   = "enter saves · esc drops"
	filterHint = "enter keeps · esc clears"
)

func newInput(placeholder string, limit int) textinput.Model {
	in := textinput.New()
	in.Placeholder = placeholder
	in.CharLimit = limit
	return in
}

// openNote opens the note modal on the selected group, always and from
// every view (it returns there when it closes): a group that never ran
// keeps the note for its next run, so what was typed is neither lost nor
// read as keys.
func (m *Model) openNote() tea.Cmd {
	m.mode, m.noteBack = modeNote, m.mode
	m.note.Reset()
	m.note.SetWidth(max(m.width-len1(m.notePrompt())-len1(noteHint)-6, 10))
	return m.note.Focus()
}

// notePrompt says where the note goes.
func (m *Model) notePrompt() string {
	gr := m.selected()
	if gr.sess == nil {
		return "note for " + gr.g.ID + "'s next run (not run yet): "
	}
	return "note for " + gr.g.ID + ": "
}

// onNoteKey edits the note; enter records it in the session (and rewrites
// the artifact when the session has ended) or keeps it for the group's
// next run, esc drops it.
func (m *Model) onNoteKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.mode = m.noteBack
		m.note.Blur()
		m.setStatus("note dropped", false)
		return nil
	case msg.String() == "enter":
		m.mode = m.noteBack
		m.note.Blur()
		return m.saveNote(strings.TrimSpace(m.note.Value()))
	}
	var cmd tea.Cmd
	m.note, cmd = m.note.Update(msg)
	return cmd
}

// saveNote records text on the selected group.
func (m *Model) saveNote(text string) tea.Cmd {
	gr := m.selected()
	switch {
	case text == "":
		m.setStatus("empty note dropped", false)
		return nil
	case gr.sess == nil:
		gr.pending = append(gr.pending, text)
		m.setStatus(gr.g.ID+": note kept for its next run", false)
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
	return tea.Sequence(note, export(m.cfg.Sessions, m.sel, sess, true))
}

// openFilter opens the filter modal; what is typed narrows the list at
// once.
func (m *Model) openFilter() tea.Cmd {
	m.mode = modeFilter
	m.filter.SetValue(m.filterText)
	m.filter.CursorEnd()
	m.filter.SetWidth(max(m.width-len1("filter: ")-len1(filterHint)-16, 10))
	return m.filter.Focus()
}

// onFilterKey edits the filter: enter keeps it, esc clears it; the list
// follows every keystroke.
func (m *Model) onFilterKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.mode = modeMain
		m.filter.Blur()
		m.applyFilter("")
		return nil
	case msg.String() == "enter":
		m.mode = modeMain
		m.filter.Blur()
		return nil
	}
	var cmd tea.Cmd
	m.filter, cmd = m.filter.Update(msg)
	m.applyFilter(m.filter.Value())
	return cmd
}

// applyFilter keeps the groups whose id or title holds text (any case)
// and moves the selection into them when it fell out.
func (m *Model) applyFilter(text string) {
	m.filterText = strings.TrimSpace(text)
	m.shown = m.shown[:0]
	needle := strings.ToLower(m.filterText)
	for i, gr := range m.groups {
		hay := strings.ToLower(gr.g.ID + " " + gr.g.Title)
		if needle == "" || strings.Contains(hay, needle) {
			m.shown = append(m.shown, i)
		}
	}
	if len(m.shown) > 0 && !contains(m.shown, m.sel) {
		m.sel = m.shown[0]
	}
}

// inputMsg passes a message that is not a key (the cursor's blink) to the
// open modal's input.
func (m *Model) inputMsg(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch m.mode {
	case modeNote:
		m.note, cmd = m.note.Update(msg)
	case modeFilter:
		m.filter, cmd = m.filter.Update(msg)
	}
	return cmd
}
