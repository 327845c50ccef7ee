package ui

import "charm.land/bubbles/v2/key"

// KeyMap holds the console's key bindings. Each binding's help says what
// it does; the footer and the help screen are drawn from them.
type KeyMap struct {
	Up, Down  key.Binding
	Run       key.Binding
	RunAll    key.Binding
	Pause     key.Binding
	Extend    key.Binding
	Stop      key.Binding
	Baseline  key.Binding
	Compare   key.Binding
	Note      key.Binding
	Export    key.Binding
	Rebuild   key.Binding
	Help      key.Binding
	Quit      key.Binding
	Back      key.Binding
	Choose    key.Binding
	PageUp    key.Binding
	PageDown  key.Binding
	ForceQuit key.Binding
}

// DefaultKeyMap returns the keys DESIGN.md lists.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up:        b("↑/k", "previous group", "up", "k"),
		Down:      b("↓/j", "next group", "down", "j"),
		Run:       b("enter", "run the selected group", "enter"),
		RunAll:    b("a", "run all groups in order", "a"),
		Pause:     b("p", "pause / resume", "p"),
		Extend:    b("e", "extend the running step", "e"),
		Stop:      b("s", "stop the step", "s"),
		Baseline:  b("b", "pick a baseline", "b"),
		Compare:   b("c", "compare view, every step", "c"),
		Note:      b("n", "write a note into the artifact", "n"),
		Export:    b("x", "export the artifact now", "x"),
		Rebuild:   b("r", "rebuild and restart the target", "r"),
		Help:      b("?", "help", "?"),
		Quit:      b("q", "quit (stops, exports first)", "q", "ctrl+c"),
		Back:      b("esc", "back", "esc"),
		Choose:    b("enter", "choose", "enter"),
		PageUp:    b("pgup", "scroll up", "pgup", "up", "k"),
		PageDown:  b("pgdn", "scroll down", "pgdown", "down", "j", "space"),
		ForceQuit: b("ctrl+c", "quit at once", "ctrl+c"),
	}
}

// footerKeys are the bindings the footer shows, most useful first; the
// footer drops those that do not fit.
func (k KeyMap) footerKeys() []key.Binding {
	return []key.Binding{k.Run, k.Pause, k.Extend, k.Stop, k.Quit, k.Help, k.RunAll,
		k.Baseline, k.Compare, k.Note, k.Export, k.Rebuild}
}

// shortHelp is the footer's word for a binding.
var shortHelp = map[string]string{
	"enter": "run", "p": "pause", "e": "extend", "s": "stop", "q": "quit", "?": "help",
	"a": "all", "b": "baseline", "c": "compare", "n": "note", "x": "export", "r": "rebuild",
}
