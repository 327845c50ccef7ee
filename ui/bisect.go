package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/benchtui/benchtui/runners/engine"
)

// The live view of a bisection (benchtui bisect --console): the commits
// from the good revision to the bad one with a mark each, the probe in
// progress with its live figures, and the verdict at the end. The
// bisection runs elsewhere and tells the view what happens through a
// channel of BisectEvents, read by a Cmd re-armed after each, so Update
// never blocks.

// noProbe is the probing index while no probe runs.
const noProbe = -2

// BisectModel is the Bubble Tea model of a bisection's live view. Use it
// through a pointer.
type BisectModel struct {
	events <-chan BisectEvent
	cancel func()
	st     Styles
	keys   KeyMap

	width, height int
	// rng is the bisection's range, once it arrived (started).
	rng     BisectRange
	started bool
	// judged are the probes' verdicts by revision (-1 the good one).
	judged map[int]BisectJudged
	// probing is the revision being probed, noProbe between probes; probe
	// says how far it is, live is its newest snapshot (nil while it builds).
	probing int
	probe   BisectProbe
	live    *engine.Snapshot
	// good and bad are the search's bounds; left the probes left at most.
	good, bad, left int
	end             *BisectEnd
	closed          bool // the bisection ended and cleaned up

	help        bool
	confirmQuit bool
	quitting    bool
	status      string
	statusErr   bool
}

// NewBisectView is the live view of the bisection whose events arrive
// on events; cancel stops that bisection (q, ctrl+c), which then removes
// its worktree and closes events.
func NewBisectView(events <-chan BisectEvent, cancel func()) *BisectModel {
	return &BisectModel{events: events, cancel: cancel, st: DefaultStyles(), keys: DefaultKeyMap(),
		width: 80, height: 24, judged: map[int]BisectJudged{}, probing: noProbe}
}

// bisectMsg is the next event; ok is false once the bisection closed its
// channel.
type bisectMsg struct {
	ev BisectEvent
	ok bool
}

// waitBisect waits for the bisection's next event; re-armed after each.
func waitBisect(ch <-chan BisectEvent) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		return bisectMsg{ev: ev, ok: ok}
	}
}

// Init starts reading the bisection's events.
func (m *BisectModel) Init() tea.Cmd { return waitBisect(m.events) }

// Update applies msg to the model; it never blocks.
func (m *BisectModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case bisectMsg:
		return m, m.onEvent(msg)
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	case quitNowMsg:
		return m, tea.Quit
	}
	return m, nil
}

// onEvent takes in one event and waits for the next; once the channel
// closes, a quit in progress ends.
func (m *BisectModel) onEvent(msg bisectMsg) tea.Cmd {
	if !msg.ok {
		m.closed = true
		if m.quitting {
			return tea.Quit
		}
		return nil
	}
	m.apply(msg.ev)
	return waitBisect(m.events)
}

// apply records an event.
func (m *BisectModel) apply(ev BisectEvent) {
	switch ev := ev.(type) {
	case BisectRange:
		m.rng, m.started = ev, true
		m.good, m.bad, m.left = -1, len(ev.Commits)-1, ev.MaxProbes
	case BisectProbe:
		m.probing, m.probe, m.live = ev.Index, ev, nil
	case BisectLive:
		if m.probing != noProbe {
			m.live = &ev.Snap
		}
	case BisectJudged:
		m.judged[ev.Index] = ev
		m.good, m.bad, m.left = ev.Good, ev.Bad, ev.Left
		m.probing, m.live = noProbe, nil
	case BisectEnd:
		m.end, m.probing, m.live = &ev, noProbe, nil
	}
}

// running reports whether the bisection is still going.
func (m *BisectModel) running() bool { return m.end == nil && !m.closed }

// onKey: ? the help (any key leaves it), q quits (asking first while the
// bisection runs), ctrl+c stops it at once.
func (m *BisectModel) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.ForceQuit) {
		return m.quit()
	}
	if m.help {
		m.help = false
		return nil
	}
	if m.confirmQuit {
		m.confirmQuit = false
		m.status, m.statusErr = "", false
		switch {
		case key.Matches(msg, m.keys.Quit):
			return m.quit()
		case key.Matches(msg, m.keys.Back):
			m.status = "still bisecting"
			return nil
		}
	}
	switch {
	case key.Matches(msg, m.keys.Help):
		m.help = true
	case key.Matches(msg, m.keys.Quit):
		return m.askQuit()
	}
	return nil
}

// askQuit quits at once once the bisection has ended; while it runs it
// asks first, once.
func (m *BisectModel) askQuit() tea.Cmd {
	if !m.running() || m.quitting {
		return m.quit()
	}
	m.confirmQuit = true
	m.status, m.statusErr = "bisecting: q again to stop it (its worktree is removed), esc to stay", true
	return nil
}

// quit stops a running bisection and quits once it has cleaned up
// (bounded by quitWait); a second quit, or one after the end, leaves at
// once.
func (m *BisectModel) quit() tea.Cmd {
	if !m.running() || m.quitting {
		return tea.Quit
	}
	m.quitting, m.confirmQuit = true, false
	m.status, m.statusErr = "quitting: stopping the probe and removing its worktree…", false
	cancel := m.cancel
	return tea.Batch(func() tea.Msg {
		if cancel != nil {
			cancel()
		}
		return nil
	}, quitAfter(quitWait))
}
