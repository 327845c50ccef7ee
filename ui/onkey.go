package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
)

// onKey routes a key by the mode the console is in: an open modal (the
// note, the filter) owns every key but ctrl+c; a full-screen view takes
// its own keys and the note and the filter. An esc typed just before a
// key arrives as alt+key: it is read as both.
func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.ForceQuit) {
		return m.quit()
	}
	if next, ok := m.escThen(msg); ok {
		return tea.Batch(m.onKey(tea.KeyPressMsg{Code: tea.KeyEscape}), m.onKey(next))
	}
	switch m.mode {
	case modeNote:
		return m.onNoteKey(msg)
	case modeFilter:
		return m.onFilterKey(msg)
	case modePicker, modeHelp, modeCompare, modeSlower:
		return m.onViewKey(msg)
	}
	if m.confirmQuit {
		return m.onConfirmKey(msg)
	}
	if m.onNavKey(msg) {
		return nil
	}
	return m.onMainKey(msg)
}

// onConfirmKey answers the question a first q mid-run asked: q again
// stops, saves and quits, esc stays; any other key drops the question and
// does what it does.
func (m *Model) onConfirmKey(msg tea.KeyPressMsg) tea.Cmd {
	m.confirmQuit = false
	switch {
	case key.Matches(msg, m.keys.Quit):
		return m.quit()
	case key.Matches(msg, m.keys.Back):
		m.setStatus("still running", false)
		return nil
	}
	m.setStatus("", false)
	if m.onNavKey(msg) {
		return nil
	}
	return m.onMainKey(msg)
}

func (m *Model) onMainKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Run):
		return m.enqueue(m.sel)
	case key.Matches(msg, k.RunAll):
		m.follow = true
		return m.enqueue(m.shown...)
	case key.Matches(msg, k.Pause):
		return m.withSession(pauseResume)
	case key.Matches(msg, k.Extend):
		return m.withSession(extendStep(extendBy(m.selected().g, m.cfg.Duration)))
	case key.Matches(msg, k.Stop):
		return m.withSession(stopStep)
	case key.Matches(msg, k.Baseline):
		return m.openPicker()
	case key.Matches(msg, k.Compare):
		m.mode, m.scroll = modeCompare, 0
	case key.Matches(msg, k.Slower):
		return m.openSlower()
	case key.Matches(msg, k.Note):
		return m.openNote()
	case key.Matches(msg, k.Filter):
		return m.openFilter()
	case key.Matches(msg, k.ByName):
		m.byName = !m.byName
	case key.Matches(msg, k.Targets):
		if !m.selected().cycleTarget() {
			m.setStatus("t: this group watches one target at most", false)
		}
	case key.Matches(msg, k.Export):
		return m.exportNow()
	case key.Matches(msg, k.Rebuild):
		return m.rebuild()
	case key.Matches(msg, k.Watch):
		m.toggleWatch()
	case key.Matches(msg, k.Help):
		m.mode, m.scroll = modeHelp, 0
	case key.Matches(msg, k.Quit):
		return m.askQuit()
	}
	return nil
}

// onViewKey routes a key in a full-screen view (compare, what got
// slower, the picker, help): n opens the note (it returns to the view), / the filter on the
// list; the rest is the view's.
func (m *Model) onViewKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Note):
		return m.openNote()
	case key.Matches(msg, m.keys.Filter):
		return m.openFilter()
	}
	switch m.mode {
	case modePicker:
		return m.onPickerKey(msg)
	case modeHelp:
		return m.onHelpKey(msg)
	case modeSlower:
		return m.onScrolledKey(msg, m.keys.Slower, "what got slower")
	}
	return m.onScrolledKey(msg, m.keys.Compare, "compare")
}

// onScrolledKey takes a key in a view that scrolls (compare, what got
// slower): esc, the view's own key or q goes back, ↑/↓ scroll; any other
// key does nothing there, and the status line says so.
func (m *Model) onScrolledKey(msg tea.KeyPressMsg, own key.Binding, view string) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Back), key.Matches(msg, own), key.Matches(msg, m.keys.Quit):
		m.mode = modeMain
	case key.Matches(msg, m.keys.PageUp):
		m.scroll = max(m.scroll-1, 0)
	case key.Matches(msg, m.keys.PageDown):
		m.scroll++
	default:
		m.notHere(msg, view)
	}
	return nil
}

// notHere says on the status line that a key does nothing in the view,
// so that a key meant for another view is seen to do nothing.
func (m *Model) notHere(msg tea.KeyPressMsg, view string) {
	m.setStatus(msg.Keystroke()+" does nothing in "+view+" (esc goes back)", false)
}

// onHelpKey scrolls the help; any other key goes back.
func (m *Model) onHelpKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.PageUp):
		m.scroll = max(m.scroll-1, 0)
	case key.Matches(msg, m.keys.PageDown):
		m.scroll++
	default:
		m.mode = modeMain
	}
	return nil
}

// askQuit quits at once when nothing runs; mid-run it asks first, once.
func (m *Model) askQuit() tea.Cmd {
	if m.active < 0 || m.quitting {
		return m.quit()
	}
	m.confirmQuit = true
	m.setStatus("run in progress: q again to stop and save, esc to stay", true)
	return nil
}

// enqueue queues groups to run, one session at a time, in order.
func (m *Model) enqueue(idx ...int) tea.Cmd {
	if m.cfg.Engine == nil {
		m.setStatus("nothing can run here", true)
		return nil
	}
	var added []string
	for _, i := range idx {
		if i == m.active || contains(m.queue, i) {
			continue
		}
		m.queue = append(m.queue, i)
		m.groups[i].state = stateQueued
		added = append(added, m.groups[i].g.ID)
	}
	if len(added) > 0 && m.active >= 0 {
		m.setStatus("queued "+strings.Join(added, ", ")+" after "+m.groups[m.active].g.ID, false)
	}
	return m.startNext()
}

// queuedIDs are the groups waiting to run, in order.
func (m *Model) queuedIDs() []string {
	ids := make([]string, 0, len(m.queue))
	for _, i := range m.queue {
		ids = append(ids, m.groups[i].g.ID)
	}
	return ids
}

// Cancelled are the groups that waited in the queue when the console
// quit, in order: they never ran. For the summary once Run has returned.
func (m *Model) Cancelled() []string {
	return append(append([]string(nil), m.cancelled...), m.queuedIDs()...)
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// withSession runs a control on the selected group's running session in a
// Cmd.
func (m *Model) withSession(f func(*engine.Session) (string, bool)) tea.Cmd {
	gr := m.selected()
	sess := gr.sess
	if sess == nil || m.sel != m.active {
		m.setStatus(gr.g.ID+" is not running (enter runs it)", true)
		return nil
	}
	return control(func() (string, bool) { return f(sess) })
}

// pauseResume runs in a Cmd: it may not touch the model.
func pauseResume(sess *engine.Session) (string, bool) {
	id := sess.Group().ID
	switch {
	case sess.Pause():
		return id + " paused (p resumes)", true
	case sess.Resume():
		return id + " resumed", true
	}
	return id + ": nothing to pause between steps", false
}

func stopStep(sess *engine.Session) (string, bool) {
	sess.StopStep("stopped by the operator")
	return sess.Group().ID + ": step stopped", true
}

// extendStep lengthens the running step by d.
func extendStep(d time.Duration) func(*engine.Session) (string, bool) {
	return func(sess *engine.Session) (string, bool) {
		if !sess.Extend(d, "by the operator") {
			return sess.Group().ID + ": only the measured phase can be extended", false
		}
		return fmt.Sprintf("%s: e added +%s to the step", sess.Group().ID, dur(d)), true
	}
}

// extendBy is how far e extends a step: the soak policy's step, else a
// quarter of the step's planned duration.
func extendBy(g *plan.Group, override time.Duration) time.Duration {
	if g.Soak != nil && g.Soak.ExtendWhileRSSRising != nil && g.Soak.ExtendWhileRSSRising.Step.D() > 0 {
		return g.Soak.ExtendWhileRSSRising.Step.D()
	}
	d := g.Duration.D()
	if override > 0 {
		d = override
	}
	if d <= 0 {
		return 30 * time.Second
	}
	return max(d/4, time.Second)
}

func (m *Model) exportNow() tea.Cmd {
	gr := m.selected()
	if gr.sess == nil {
		m.setStatus(gr.g.ID+": nothing measured yet in this console", true)
		return nil
	}
	return export(m.cfg.Sessions, m.sel, gr.sess, false)
}

func (m *Model) rebuild() tea.Cmd {
	gr := m.selected()
	name := gr.g.Target
	spec := m.cfg.Plan.Targets[name]
	switch {
	case name == "" || spec == nil:
		m.setStatus(gr.g.ID+" has no target to rebuild", true)
	case len(spec.Build) == 0 && len(spec.Command) == 0:
		m.setStatus("target "+name+" is attached, not started by benchtui: r cannot restart it", true)
	case m.active >= 0 && m.groups[m.active].g.Target == name:
		m.setStatus("stop the run on "+name+" first (s)", true)
	case m.rebuilding != "" || m.cfg.Engine == nil:
		m.setStatus("a rebuild is already running", true)
	default:
		m.rebuilding = name
		what := "rebuilding " + name + "… (output in benchtui.log)"
		if len(spec.Build) == 0 {
			what = "restarting " + name + " without a build (no build: in the plan)…"
		}
		m.setStatus(what, false)
		return rebuild(m.ctx, m.cfg.Engine, name, spec, m.cfg.Log)
	}
	return nil
}

// quit stops the running session and quits once its artifact is written
// (bounded by quitWait); a second quit leaves at once (the caller still
// exports what is left).
func (m *Model) quit() tea.Cmd {
	if m.quitting || m.active < 0 {
		return tea.Quit
	}
	m.cancelled = m.queuedIDs()
	m.quitting, m.queue, m.mode, m.confirmQuit = true, nil, modeMain, false
	for _, gr := range m.groups {
		if gr.state == stateQueued {
			gr.state = stateIdle
		}
	}
	gr := m.groups[m.active]
	m.setStatus("quitting: stopping "+gr.g.ID+" and writing its artifact…", false)
	if sess := gr.sess; sess != nil {
		return tea.Batch(control(func() (string, bool) {
			sess.Stop("quit")
			return "quitting: " + sess.Group().ID + " stopped, writing its artifact…", true
		}), quitAfter(quitWait))
	}
	return quitAfter(quitWait)
}
