package ui

import (
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// A terminal without the kitty keyboard protocol sends Alt+KEY as ESC
// then KEY, and Bubble Tea's input reader takes ESC followed within its
// 50 ms by a key as that alt+KEY: an esc typed just before a letter would
// arrive as alt+letter and do neither. The console binds nothing to Alt,
// so alt+KEY is read as esc then KEY, except the word keys of an open note
// or filter (alt+b, alt+f, alt+d, alt+backspace …).

// escThen returns the key that followed an esc which arrived as alt+key;
// false when msg is no such key.
func (m *Model) escThen(msg tea.KeyPressMsg) (tea.KeyPressMsg, bool) {
	if msg.Mod&tea.ModAlt == 0 || msg.Mod&^(tea.ModAlt|tea.ModShift) != 0 || m.altEdits(msg) {
		return msg, false
	}
	k := tea.Key(msg)
	k.Mod &^= tea.ModAlt
	switch {
	case k.Text != "":
	case k.Mod == 0 && unicode.IsPrint(k.Code):
		k.Text = string(k.Code)
	case k.Mod == tea.ModShift && unicode.IsPrint(k.ShiftedCode):
		k.Text = string(k.ShiftedCode)
	}
	return tea.KeyPressMsg(k), true
}

// altEdits reports whether msg is an Alt key the open note or filter
// edits with (moving or deleting a word).
func (m *Model) altEdits(msg tea.KeyPressMsg) bool {
	km := m.note.KeyMap
	switch m.mode {
	case modeFilter:
		km = m.filter.KeyMap
	case modeNote:
	default:
		return false
	}
	return key.Matches(msg, km.WordForward, km.WordBackward, km.DeleteWordBackward, km.DeleteWordForward)
}
