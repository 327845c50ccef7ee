package ui

import "charm.land/bubbles/v2/key"

// KeyMap holds the console's key bindings. Each binding's help says what
// it does; the footer and the help screen are drawn from them.
type KeyMap struct {
	Up, Down    key.Binding
	First, Last key.Binding
	PrevPage    key.Binding
	NextPage    key.Binding
	Filter      key.Binding
	Run         key.Binding
	RunAll      key.Binding
	Pause       key.Binding
	Extend      key.Binding
	Stop        key.Binding
	Baseline    key.Binding
	Compare     key.Binding
	Slower      key.Binding
	ByName      key.Binding
	Targets     key.Binding
	Note        key.Binding
	Export      key.Binding
	Rebuild     key.Binding
	Watch       key.Binding
	Help        key.Binding
	Quit        key.Binding
	Back        key.Binding
	Choose      key.Binding
	PageUp      key.Binding
	PageDown    key.Binding
	ForceQuit   key.Binding
}

// DefaultKeyMap returns the console's keys (docs/console.md), and the list's
// navigation.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up:        b("↑/k", "previous group", "up", "k"),
		Down:      b("↓/j", "next group", "down", "j"),
		First:     b("home/g", "first group", "home", "g"),
		Last:      b("end/G", "last group", "end", "G"),
		PrevPage:  b("pgup", "a page up the list", "pgup"),
		NextPage:  b("pgdn", "a page down the list", "pgdown"),
		Filter:    b("/", "filter by id or title", "/"),
		Run:       b("enter", "run the selected group", "enter"),
		RunAll:    b("a", "run all listed; pane follows", "a"),
		Pause:     b("p", "pause / resume", "p"),
		Extend:    b("e", "extend the step (+ in footer)", "e"),
		Stop:      b("s", "stop the step", "s"),
		Baseline:  b("b", "pick a baseline", "b"),
		Compare:   b("c", "compare view, every step", "c"),
		Slower:    b("w", "what got slower (profiles)", "w"),
		ByName:    b("d", "live table by named request", "d"),
		Targets:   b("t", "next target's charts", "t"),
		Note:      b("n", "a note into the artifact", "n"),
		Export:    b("x", "export the artifact now", "x"),
		Rebuild:   b("r", "rebuild, restart the target", "r"),
		Watch:     b("W", "watch files: rebuild and rerun on save, on/off", "W"),
		Help:      b("?", "this help", "?"),
		Quit:      b("q", "quit (asks first mid-run)", "q"),
		Back:      b("esc", "back", "esc"),
		Choose:    b("enter", "choose", "enter"),
		PageUp:    b("pgup", "scroll up", "pgup", "up", "k"),
		PageDown:  b("pgdn", "scroll down", "pgdown", "down", "j", "space"),
		ForceQuit: b("ctrl+c", "stop, save, quit at once", "ctrl+c"),
	}
}

// footerKeys are the bindings the footer shows, most useful first; the
// footer drops those that do not fit. While the selected group runs its
// controls come first; otherwise what starts, reads and steers runs.
func (k KeyMap) footerKeys(running bool) []key.Binding {
	if running {
		return []key.Binding{k.Pause, k.Extend, k.Stop, k.Quit, k.Help, k.Note, k.Export, k.Rebuild,
			k.Compare, k.Baseline, k.Filter, k.Slower}
	}
	return []key.Binding{k.Run, k.Quit, k.Help, k.RunAll, k.Note, k.Export, k.Rebuild,
		k.Baseline, k.Compare, k.Filter, k.Slower, k.Watch}
}

// shortHelp is the footer's word for a binding.
var shortHelp = map[string]string{
	"enter": "run", "p": "pause", "e": "extend", "s": "stop", "q": "quit", "?": "help",
	"a": "all", "b": "base", "c": "cmp", "w": "slower", "n": "note", "x": "export", "r": "rebuild", "/": "find",
	"W": "watch",
}

// viewHint is a footer entry of a full-screen view: the key as shown and
// what it does there.
type viewHint struct{ key, word string }

// viewHints are the keys a full-screen view (compare, what got slower,
// the baseline picker, help) takes, for its footer: each view lists only its own, and
// every view reaches the note and the filter.
func (k KeyMap) viewHints(md mode) []viewHint {
	text := []viewHint{{k.Note.Help().Key, "note"}, {k.Filter.Help().Key, "find"}, {k.ForceQuit.Help().Key, "quit"}}
	switch md {
	case modeCompare, modeSlower:
		return append([]viewHint{{"↑/↓", "scroll"}, {"esc", "back"}}, text...)
	case modePicker:
		return append([]viewHint{{"↑/↓", "move"}, {"enter", "pick"}, {"esc", "back"}}, text...)
	}
	return append([]viewHint{{"↑/↓", "scroll"}}, append(text, viewHint{"other keys", "back"})...)
}

// helpKeys are the bindings the help screen lists, in its order.
func (k KeyMap) helpKeys() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.First, k.Last, k.PrevPage, k.NextPage, k.Filter,
		k.Run, k.RunAll, k.Pause, k.Extend, k.Stop, k.Note, k.Export, k.Rebuild, k.Watch,
		k.Baseline, k.Compare, k.Slower, k.ByName, k.Targets, k.Help, k.Quit, k.ForceQuit}
}
