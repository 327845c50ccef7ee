package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/benchtui/benchtui/artifacts"
)

// maxPick bounds the artifacts the baseline picker reads.
const maxPick = 50

// picker is the baseline picker's state: the group's artifacts, newest first.
type picker struct {
	group   int
	entries []pickEntry
	err     error
	cur     int
	read    bool // the folder has been read
}

// pickEntry is one artifact the operator can pick, with its headline.
type pickEntry struct {
	path     string
	started  time.Time
	rps, p99 float64
	partial  bool
	bad      string // why it cannot be read
}

type pickerMsg struct {
	entries []pickEntry
	err     error
}

// listBaselines reads the headline of each of the group's artifacts
// that started before since (all of them when since is zero): the run in
// this console is never its own baseline.
func listBaselines(dir, id string, since time.Time) tea.Cmd {
	return func() tea.Msg {
		all, err := artifacts.List(dir)
		if err != nil {
			return pickerMsg{err: err}
		}
		var out []pickEntry
		for _, e := range all {
			if e.GroupID != id || len(out) == maxPick || (!since.IsZero() && !e.Started.Before(since)) {
				continue
			}
			p := pickEntry{path: e.Path, started: e.Started}
			if a, err := artifacts.Load(e.Path); err != nil {
				p.bad = err.Error()
			} else {
				p.rps, p.p99, _ = headline(a)
				p.partial = a.Run.Partial
			}
			out = append(out, p)
		}
		return pickerMsg{entries: out}
	}
}

// headline is an artifact's one-line result: the last step's throughput
// and p99 (for a sweep, the heaviest step).
func headline(a *artifacts.Artifact) (rps, p99 float64, ok bool) {
	if a == nil || len(a.Steps) == 0 {
		return 0, 0, false
	}
	s := a.Steps[len(a.Steps)-1]
	return s.ThroughputRPS, s.LatencyMS.P99, true
}

func (m *Model) openPicker() tea.Cmd {
	m.mode = modePicker
	m.picker = picker{group: m.sel}
	var since time.Time // the current run's start: its own artifact is no baseline
	if gr := m.selected(); gr.sess != nil {
		since = gr.runStart
	}
	return listBaselines(m.cfg.Dir, m.selected().g.ID, since)
}

func (m *Model) onPickerKey(msg tea.KeyPressMsg) tea.Cmd {
	p := &m.picker
	switch {
	case key.Matches(msg, m.keys.Back), key.Matches(msg, m.keys.Baseline), key.Matches(msg, m.keys.Quit):
		m.mode = modeMain
	case key.Matches(msg, m.keys.Up):
		p.cur = max(p.cur-1, 0)
	case key.Matches(msg, m.keys.Down):
		p.cur = min(p.cur+1, max(len(p.entries)-1, 0))
	case key.Matches(msg, m.keys.Choose):
		if p.cur >= len(p.entries) || p.entries[p.cur].bad != "" {
			return nil
		}
		m.mode = modeMain
		path := p.entries[p.cur].path
		m.setStatus("baseline: "+path, false)
		return loadPicked(p.group, path)
	default:
		m.notHere(msg, "the picker")
	}
	return nil
}

// viewPicker draws the picker full screen.
func (m *Model) viewPicker(w, h int) []string {
	st, p := m.st, m.picker
	lines := []string{st.Title.Render("Baseline for " + m.groups[p.group].g.ID + " — enter picks, esc goes back (* current)"), ""}
	switch {
	case p.err != nil:
		lines = append(lines, st.Error.Render(p.err.Error()))
	case !p.read:
		lines = append(lines, st.Dim.Render("reading "+m.cfg.Dir+"…"))
	case len(p.entries) == 0:
		lines = append(lines, st.Dim.Render("no artifacts of "+m.groups[p.group].g.ID+" in "+m.cfg.Dir))
	}
	lines = append(lines, st.Header.Render(fit(fmt.Sprintf("  %-19s %9s %9s  %s", "started", "rps", "p99 ms", "file"), w)))
	rows := h - len(lines)
	first := max(0, min(p.cur-rows/2, len(p.entries)-rows))
	for i := first; i < len(p.entries) && i < first+rows; i++ {
		lines = append(lines, m.pickLine(i, w))
	}
	return lines
}

func (m *Model) pickLine(i, w int) string {
	e := m.picker.entries[i]
	mark := []rune("  ")
	if i == m.picker.cur {
		mark[0] = '▸'
	}
	if e.path == m.groups[m.picker.group].basePath {
		mark[1] = '*'
	}
	line := fmt.Sprintf("%s%-19s %9s %9s  %s", string(mark), e.started.Local().Format("2006-01-02 15:04:05"),
		compact(e.rps), compact(e.p99), baseName(e.path))
	if e.partial {
		line += " (partial)"
	}
	if e.bad != "" {
		line = fmt.Sprintf("%s%-19s unreadable: %s", string(mark), e.started.Local().Format("2006-01-02 15:04:05"), e.bad)
	}
	line = fit(line, w)
	if i == m.picker.cur {
		return m.st.Selected.Render(line)
	}
	return line
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}
