package ui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
)

// compareEvery bounds how often a running group's comparison is redone.
const compareEvery = time.Second

// quitWait bounds how long quitting waits for sessions to stop and export.
const quitWait = 6 * time.Second

// Update applies msg to the model. It never blocks: everything slow is a
// Cmd.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	if len(m.logs) > 0 {
		cmd = tea.Batch(cmd, writeLog(m.log, m.logs))
		m.logs = nil
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.render() // reflow at once
		return nil
	case frameMsg:
		m.tickArmed = false
		if m.dirty {
			m.render()
		}
		return nil
	case tea.KeyPressMsg:
		return tea.Batch(m.onKey(msg), m.markDirty())
	case quitNowMsg:
		return tea.Quit
	}
	return tea.Batch(m.onEvent(msg), m.markDirty())
}

// onEvent handles the messages of Cmds and the textinput's own.
func (m *Model) onEvent(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case SnapshotMsg:
		return m.onSnapshot(msg)
	case endedMsg:
		return m.onEnded(msg)
	case startedMsg:
		return m.onStarted(msg)
	case exportedMsg:
		return m.onExported(msg)
	case baselineMsg:
		return m.onBaseline(msg)
	case CompareMsg:
		gr := m.groups[msg.Group]
		gr.cmpBusy = false
		if msg.base == nil || msg.base == gr.base { // else the baseline changed meanwhile
			c := msg.Cmp
			gr.cmp = &c
			if msg.final != nil {
				m.judged(msg.Group, msg.final, msg.path, &c)
			}
		}
	case slowerMsg:
		m.onSlower(msg)
	case pickerMsg:
		m.picker.entries, m.picker.err, m.picker.read = msg.entries, msg.err, true
	case statusMsg:
		m.setStatus(msg.text, msg.isErr)
	case rebuiltMsg:
		return m.onRebuilt(msg)
	case changeMsg:
		return m.onChange(msg)
	default:
		return m.inputMsg(msg)
	}
	return nil
}

func (m *Model) onSnapshot(msg SnapshotMsg) tea.Cmd {
	gr := m.groups[msg.Group]
	gr.snap, gr.seen = msg.Snap, true
	if msg.Snap.Target == nil && msg.Snap.Self != nil {
		gr.selfFDs = appendBounded(gr.selfFDs, float64(msg.Snap.Self.FDs))
	}
	gr.keepOthers(msg.Snap)
	switch {
	case msg.Snap.Err != nil:
		gr.state, gr.err = stateFailed, m.cfg.Plan.Redact(msg.Snap.Err.Error())
	case msg.Snap.State == engine.StatePaused:
		gr.state = statePaused
	case gr.state != stateFailed:
		gr.state = stateRunning
	}
	m.tellSoak(gr)
	cmds := []tea.Cmd{waitSnapshot(msg.Group, msg.Sess, msg.Sess.Snapshots())}
	if gr.base != nil && !gr.cmpBusy && time.Since(gr.cmpAt) >= compareEvery {
		gr.cmpBusy, gr.cmpAt = true, time.Now()
		cmds = append(cmds, compare(msg.Group, gr.base, msg.Sess))
	}
	return tea.Batch(cmds...)
}

// tellSoak puts a new extension by the soak policy on the status line, in
// place of what an earlier key left there.
func (m *Model) tellSoak(gr *group) {
	n, added := artifacts.AutoExtensions(gr.snap.Events)
	if n <= gr.autoSeen {
		return
	}
	gr.autoSeen = n
	r := gr.snap.RSS
	m.setStatus(fmt.Sprintf("%s: soak auto-extended the step (%d, +%s in all): RSS %s",
		gr.g.ID, n, dur(added), artifacts.TailSlopeText(r.Tail, r.TailWindowS)), false)
}

func (m *Model) onEnded(msg endedMsg) tea.Cmd {
	gr := m.groups[msg.group]
	if err := msg.sess.Err(); err != nil {
		gr.state, gr.err = stateFailed, m.cfg.Plan.Redact(err.Error())
	} else if gr.state != stateFailed {
		gr.state = stateDone
	}
	if m.active == msg.group {
		m.active = -1
	}
	m.logInfo("session ended", "group", gr.g.ID, "state", gr.state)
	cmds := []tea.Cmd{export(m.cfg.Sessions, msg.group, msg.sess, true)}
	if !m.quitting {
		cmds = append(cmds, m.startNext(), m.afterRun())
	}
	return tea.Batch(cmds...)
}

func (m *Model) onStarted(msg startedMsg) tea.Cmd {
	gr := m.groups[msg.group]
	if msg.err != nil {
		gr.state, gr.err = stateFailed, m.cfg.Plan.Redact(msg.err.Error())
		m.active = -1
		m.setStatus(gr.g.ID+": "+gr.err, true)
		if m.quitting {
			return tea.Quit
		}
		return m.startNext()
	}
	gr.sess, gr.runStart, gr.state, gr.seen, gr.cmp, gr.selfFDs = msg.sess, msg.at, stateRunning, false, nil, nil
	gr.trails = nil
	gr.autoSeen = 0
	m.logInfo("session started", "group", gr.g.ID)
	m.setStatus(gr.g.ID+" running", false)
	cmds := []tea.Cmd{waitSnapshot(msg.group, msg.sess, msg.sess.Snapshots())}
	if !gr.basePicked {
		cmds = append(cmds, loadBaseline(msg.group, m.cfg.Dir, gr.g.ID, msg.at))
	}
	if note, ok := m.rebuilt[gr.g.Target]; ok && gr.g.Target != "" {
		delete(m.rebuilt, gr.g.Target)
		sess := msg.sess
		cmds = append(cmds, control(func() (string, bool) { sess.Note(note); return note, true }))
	}
	if notes := gr.pending; len(notes) > 0 {
		gr.pending = nil
		sess := msg.sess
		cmds = append(cmds, control(func() (string, bool) {
			for _, n := range notes {
				sess.Note(n)
			}
			return sess.Group().ID + ": your note went into this run", true
		}))
	}
	if m.quitting {
		msg.sess.Stop("quit")
	}
	return tea.Batch(cmds...)
}

func (m *Model) onExported(msg exportedMsg) tea.Cmd {
	gr := m.groups[msg.group]
	if msg.err != nil {
		m.setStatus("export: "+msg.err.Error(), true)
	} else {
		gr.setLast(msg.art)
		m.logInfo("artifact written", "path", msg.path, "final", msg.final, "partial", msg.art.Run.Partial)
		m.setStatus(gr.g.ID+": artifact "+msg.path+partialWord(msg.art.Run.Partial), false)
	}
	if m.quitting && m.active < 0 && m.cfg.Sessions.pending() == 0 {
		return tea.Quit
	}
	if msg.final && gr.base != nil && msg.art != nil {
		gr.cmpBusy = true
		return compareFinal(msg.group, gr.base, msg.art, msg.path)
	}
	if msg.final && msg.err == nil {
		m.judged(msg.group, msg.art, msg.path, nil) // a loop run with no baseline becomes it
	}
	return nil
}

func partialWord(p bool) string {
	if p {
		return " (partial)"
	}
	return ""
}

func (m *Model) onBaseline(msg baselineMsg) tea.Cmd {
	gr := m.groups[msg.group]
	if msg.err != nil {
		m.setStatus(gr.g.ID+": baseline: "+msg.err.Error(), true)
		return nil
	}
	if gr.basePicked && !msg.picked {
		return nil // the operator's choice stands
	}
	gr.base, gr.basePath, gr.basePicked, gr.cmp = msg.art, msg.path, msg.picked, nil
	if gr.last == nil && gr.sess == nil && msg.newest != nil {
		gr.setLast(msg.newest) // the last result on disk
	}
	switch {
	case msg.art == nil:
		return nil
	case gr.sess != nil:
		gr.cmpBusy, gr.cmpAt = true, time.Now()
		return compare(msg.group, msg.art, gr.sess)
	}
	return nil
}

func (m *Model) onRebuilt(msg rebuiltMsg) tea.Cmd {
	if m.watch.building {
		return m.onWatchBuilt(msg)
	}
	m.rebuilding = ""
	if msg.err != nil {
		m.setStatus(msg.err.Error()+" (see benchtui.log)", true)
		return nil
	}
	if !msg.built {
		m.logInfo("target restarted without a build", "target", msg.target)
		m.rebuilt[msg.target] = fmt.Sprintf("target %s restarted (no build) at %s", msg.target, time.Now().Format(time.TimeOnly))
		m.setStatus(msg.target+" stopped, not rebuilt (no build: in the plan); starts anew with the next run", false)
		return nil
	}
	m.logInfo("target rebuilt", "target", msg.target)
	m.rebuilt[msg.target] = fmt.Sprintf("target %s rebuilt and restarted at %s", msg.target, time.Now().Format(time.TimeOnly))
	m.setStatus(msg.target+" rebuilt; restarts with the next run", false)
	return nil
}

// startNext starts the next queued group when nothing runs; after a run
// all, the selection follows it.
func (m *Model) startNext() tea.Cmd {
	if len(m.queue) == 0 && m.active < 0 {
		m.follow = false
	}
	if m.active >= 0 || len(m.queue) == 0 || m.cfg.Engine == nil {
		return nil
	}
	i := m.queue[0]
	m.queue = m.queue[1:]
	m.active = i
	if m.follow && contains(m.shown, i) {
		m.sel = i
	}
	gr := m.groups[i]
	gr.state, gr.err = stateRunning, ""
	m.setStatus("starting "+gr.g.ID+"…", false)
	return startSession(m.ctx, m.cfg.Engine, m.cfg.Sessions, i, gr.g)
}

// maxSelfSamples bounds the self fds history; older halves are thinned.
const maxSelfSamples = 1000

func appendBounded(xs []float64, x float64) []float64 {
	if len(xs) >= maxSelfSamples {
		out := xs[:0]
		for i := 0; i < len(xs); i += 2 {
			out = append(out, max(xs[i], xs[min(i+1, len(xs)-1)]))
		}
		xs = out
	}
	return append(xs, x)
}
