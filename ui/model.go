// Package ui is benchtui's interactive console, a Bubble Tea program.
//
// The model never blocks: sessions are started, artifacts read and written,
// comparisons computed and the target rebuilt in tea.Cmds. Each running
// session's snapshots arrive through a Cmd that waits on the session's
// newest-wins channel and is re-armed after every message, so a slow screen
// never slows the load. The model keeps only the newest snapshot per group
// and marks itself dirty; the frame is redrawn on a 100 ms tick, so the
// console draws at most ten frames a second whatever the snapshot rate.
// View only returns the last frame.
package ui

import (
	"context"
	"io"
	"log/slog"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/benchtui/benchtui/artifacts"
	artcompare "github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/filewatch"
	"github.com/benchtui/benchtui/runners/plan"
)

// FrameEvery is the shortest time between two redraws.
const FrameEvery = 100 * time.Millisecond

// Group states as the console shows them.
const (
	stateIdle    = "idle"
	stateQueued  = "queued"
	stateRunning = "running"
	statePaused  = "paused"
	stateDone    = "done"
	stateFailed  = "failed"
)

// Engine is what the console needs of a runners.Run.
type Engine interface {
	// Session starts the group's target when needed and returns a session,
	// not yet started. It may block (a target starting).
	Session(ctx context.Context, g *plan.Group) (*engine.Session, error)
	// RestartTarget stops the named target so the next session starts it anew.
	RestartTarget(name string) error
}

// Config is what the console is opened with.
type Config struct {
	Plan *plan.Plan
	// Engine starts sessions; nil means nothing can be run (view tests).
	Engine Engine
	// Dir is the artifacts folder: baselines are read and exports written there.
	Dir string
	// Duration, when positive, replaced every step's duration in the engine.
	Duration time.Duration
	// Sessions is shared with the caller, which exports what is left on
	// every way out; nil makes a new one.
	Sessions *Sessions
	// Log receives the console's log lines and the rebuild output; nil
	// discards them. Never the terminal.
	Log io.Writer
	// Context bounds the sessions; nil means context.Background().
	Context context.Context
	// Started is when the console opened; the baselines are the artifacts
	// written before it. Zero means now.
	Started time.Time
	// Warnings about the plan (load sent to public addresses) open the
	// status line and the log.
	Warnings []string
	// Changes, when set (--watch), are bursts of changed files under
	// WatchPaths: each rebuilds the selected group's target and reruns it
	// (watch.go).
	Changes    <-chan filewatch.Change
	WatchPaths []string
}

// group is the console's view of one plan group.
type group struct {
	g     *plan.Group
	state string
	err   string
	sess  *engine.Session
	snap  engine.Snapshot
	seen  bool // a snapshot arrived
	// selfFDs is benchtui's own open files over the run, for groups
	// without a target (the series carries only the target's).
	selfFDs []float64
	// trails are the further targets' RSS and fds over the run, and shown
	// the index in g.Targets of the target whose charts the detail view
	// draws (t cycles it).
	trails map[string]*trail
	shown  int
	// last is the group's latest result: this console's export, else the
	// newest artifact on disk; ending is how it ended (set with last).
	last   *artifacts.Artifact
	ending artifacts.Ending
	// The baseline, its file, and whether the operator picked it.
	base       *artifacts.Artifact
	basePath   string
	basePicked bool
	runStart   time.Time
	cmp        *artcompare.Comparison
	cmpBusy    bool
	cmpAt      time.Time
	// slower is the `w` view's comparison of profiles (view_slower.go).
	slower *slowerView
	// pending are notes written before the group's first run here: they
	// go into its next session.
	pending []string
	// autoSeen is how many soak extensions the status line has told of.
	autoSeen int
	// history is the watch loop's runs of the group, oldest first.
	history []runMark
}

type mode int

const (
	modeMain mode = iota
	modeHelp
	modeCompare
	modeSlower
	modePicker
	modeNote
	modeFilter
)

// Model is the console's Bubble Tea model. Use it through a pointer.
type Model struct {
	cfg    Config
	ctx    context.Context
	log    *slog.Logger
	st     Styles
	keys   KeyMap
	groups []*group
	sel    int
	queue  []int
	active int // the group whose session runs, -1 when none

	width, height int
	mode          mode
	status        string
	statusErr     bool
	quitting      bool
	rebuilding    string
	watch         watchLoop
	// rebuilt holds, per target, a note for the next session on it.
	rebuilt map[string]string
	note    textinput.Model
	picker  picker
	scroll  int
	// filter narrows the list to shown, the groups whose id or title holds
	// filterText.
	filter     textinput.Model
	filterText string
	shown      []int
	// confirmQuit is set by a first q while a run is in progress.
	confirmQuit bool
	// follow makes the selection follow the running group (run all) until
	// the operator moves it.
	follow bool
	// byName shows the live table by named request (d).
	byName bool
	// noteBack is the view the note returns to when it closes.
	noteBack mode
	// cancelled are the queued groups a quit dropped.
	cancelled []string

	logs      []slog.Record // written by a Cmd: Update does no I/O
	frame     string
	renders   int // frames drawn, for tests of the redraw budget
	dirty     bool
	tickArmed bool
}

// New returns a console model for cfg.
func New(cfg Config) *Model {
	if cfg.Sessions == nil {
		cfg.Sessions = NewSessions(cfg.Dir)
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Context == nil {
		cfg.Context = context.Background()
	}
	if cfg.Started.IsZero() {
		cfg.Started = time.Now()
	}
	m := &Model{cfg: cfg, ctx: cfg.Context, st: DefaultStyles(), keys: DefaultKeyMap(), active: -1,
		log: slog.New(slog.NewTextHandler(cfg.Log, nil)), width: 80, height: 24, rebuilt: map[string]string{}}
	for i, g := range cfg.Plan.Groups {
		m.groups = append(m.groups, &group{g: g, state: stateIdle})
		m.shown = append(m.shown, i)
	}
	m.note = newInput("what changed, what you saw", 500)
	m.filter = newInput("id or title", 60)
	for _, w := range cfg.Warnings {
		m.setStatus("warning: "+w, true)
	}
	m.render()
	return m
}

// Init loads each group's baseline.
func (m *Model) Init() tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.groups))
	for i, gr := range m.groups {
		cmds = append(cmds, loadBaseline(i, m.cfg.Dir, gr.g.ID, m.cfg.Started))
	}
	return tea.Batch(append(cmds, m.startWatch())...)
}

// View returns the last frame drawn; drawing happens in Update at most
// every FrameEvery.
func (m *Model) View() tea.View {
	v := tea.NewView(m.frame)
	v.AltScreen = true
	v.WindowTitle = "benchtui"
	return v
}

// frameMsg asks for a redraw.
type frameMsg struct{}

// markDirty notes that the frame is stale and arms the redraw tick when it
// is not armed yet.
func (m *Model) markDirty() tea.Cmd {
	m.dirty = true
	if m.tickArmed {
		return nil
	}
	m.tickArmed = true
	return tea.Tick(FrameEvery, func(time.Time) tea.Msg { return frameMsg{} })
}

func (m *Model) setStatus(text string, isErr bool) {
	m.status, m.statusErr = text, isErr
	if isErr {
		m.logs = append(m.logs, logLine(slog.LevelWarn, text))
	}
}

func (m *Model) selected() *group { return m.groups[m.sel] }

// setLast makes a the group's latest result and judges how it ended, once,
// so that no frame recomputes it.
func (gr *group) setLast(a *artifacts.Artifact) {
	gr.last = a
	if a != nil {
		gr.ending = artifacts.Outcome(a)
	}
}
