package ui

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/benchtui/benchtui/artifacts"
	artcompare "github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/artifacts/report"
	"github.com/benchtui/benchtui/runners/filewatch"
)

// The watch-and-rerun loop (benchtui --watch PATH): when files under the
// paths change, the selected group's target is rebuilt with its build:,
// restarted, and the group run again and judged against a pinned baseline
// (the baseline it had when the loop first ran it, else that first run).
// Each run of the loop leaves a mark in the group's history strip. A build
// that fails shows the compiler's last lines and leaves the last good
// target as it was. W turns the loop off and on.

// buildSettle is how long after a build the loop ignores changes: the
// build's own outputs (a binary written under a watched folder) arrive as
// events a little after it ends.
const buildSettle = time.Second

// maxHistory bounds a group's history strip.
const maxHistory = 50

// watchLoop is the loop's state; zero without --watch.
type watchLoop struct {
	changes     <-chan filewatch.Change
	on          bool
	paths       []string
	building    bool
	group       int // the group the current cycle reruns, -1 when none
	ignoreUntil time.Time
	// pending: files changed during a run; the loop starts again once the
	// run (stopped for it) has ended.
	pending bool
	// buildFailed is the last lines of the failed build, nil after a good
	// one.
	buildFailed []string
}

// runMark is one run of the loop in a group's history strip.
type runMark struct {
	mark, text string
	worse      bool
}

// changeMsg is a burst of changed files; ok is false once the watcher has
// stopped.
type changeMsg struct {
	change filewatch.Change
	ok     bool
}

// waitChange waits for the next burst of changes; re-armed after each.
func waitChange(ch <-chan filewatch.Change) tea.Cmd {
	return func() tea.Msg {
		c, ok := <-ch
		return changeMsg{change: c, ok: ok}
	}
}

// startWatch arms the loop when the console was started with --watch.
func (m *Model) startWatch() tea.Cmd {
	if m.cfg.Changes == nil {
		return nil
	}
	m.watch = watchLoop{changes: m.cfg.Changes, on: true, paths: m.cfg.WatchPaths, group: -1}
	return waitChange(m.cfg.Changes)
}

// toggleWatch is W: the loop off, or on again.
func (m *Model) toggleWatch() {
	switch {
	case m.watch.changes == nil:
		m.setStatus("no files watched: start the console with --watch PATH", true)
	case m.watch.on:
		m.watch.on = false
		m.setStatus("watch off: saving files reruns nothing (W turns it on)", false)
	default:
		m.watch.on = true
		m.setStatus("watch on: saving a file under "+strings.Join(m.watch.paths, ", ")+" rebuilds and reruns "+
			m.selected().g.ID, false)
	}
}

// onChange starts a cycle of the loop for the selected group, or marks
// one pending behind the run in progress (which it stops: its code is
// out of date).
func (m *Model) onChange(msg changeMsg) tea.Cmd {
	if !msg.ok {
		m.watch.changes, m.watch.on = nil, false
		return nil
	}
	rearm := waitChange(m.watch.changes)
	switch {
	case !m.watch.on:
		return rearm
	case m.watch.building || time.Now().Before(m.watch.ignoreUntil):
		return rearm // the build's own outputs
	case m.active >= 0:
		m.watch.pending = true
		gr := m.groups[m.active]
		m.setStatus(changedWhat(msg.change)+": stopping "+gr.g.ID+" to rerun it on the new code", false)
		return tea.Batch(rearm, control(func() (string, bool) { gr.sess.Stop("files changed (watch)"); return "", true }))
	}
	return tea.Batch(rearm, m.cycle(m.sel, changedWhat(msg.change)))
}

// changedWhat names a burst: "main.go changed", "3 files changed".
func changedWhat(c filewatch.Change) string {
	if len(c.Paths) == 1 {
		return filepath.Base(c.Paths[0]) + " changed"
	}
	return fmt.Sprintf("%d files changed", max(len(c.Paths), c.N))
}

// cycle rebuilds group i's target and reruns the group (onWatchBuilt),
// pinning its baseline first.
func (m *Model) cycle(i int, why string) tea.Cmd {
	gr := m.groups[i]
	m.watch.group, m.watch.pending = i, false
	if gr.base != nil {
		gr.basePicked = true // pinned: every run of the loop is judged against it
	}
	spec := m.cfg.Plan.Targets[gr.g.Target]
	if spec == nil || len(spec.Build) == 0 || m.cfg.Engine == nil {
		m.setStatus(why+": rerunning "+gr.g.ID+" (no build: in the plan)", false)
		return m.enqueue(i)
	}
	m.watch.building, m.rebuilding = true, gr.g.Target
	m.setStatus(why+": rebuilding "+gr.g.Target+"…", false)
	return rebuild(m.ctx, m.cfg.Engine, gr.g.Target, spec, m.cfg.Log)
}

// onWatchBuilt continues a cycle once its build has run: a failure goes
// into the history with the compiler's last lines, and the last good
// target stays; a good build reruns the group.
func (m *Model) onWatchBuilt(msg rebuiltMsg) tea.Cmd {
	m.watch.building, m.rebuilding = false, ""
	m.watch.ignoreUntil = time.Now().Add(buildSettle)
	i := m.watch.group
	if i < 0 {
		return nil
	}
	gr := m.groups[i]
	if msg.err != nil {
		m.watch.buildFailed = nil
		for _, l := range msg.tail { // the build's output may print a secret of the plan
			m.watch.buildFailed = append(m.watch.buildFailed, m.cfg.Plan.Redact(l))
		}
		gr.addMark(runMark{mark: "✗", text: "build failed", worse: true})
		m.setStatus(msg.err.Error()+": the last good "+msg.target+" stays (see benchtui.log)", true)
		return nil
	}
	m.watch.buildFailed = nil
	m.setStatus(msg.target+" rebuilt: rerunning "+gr.g.ID, false)
	return m.enqueue(i)
}

// afterRun continues the loop once a run has ended: a change that came
// during it starts the next cycle.
func (m *Model) afterRun() tea.Cmd {
	if !m.watch.pending || !m.watch.on || m.active >= 0 || m.quitting {
		return nil
	}
	return m.cycle(m.sel, "files changed during the run")
}

// judged records a loop run's final comparison (or, without a baseline,
// pins the run as the baseline) in the group's history.
func (m *Model) judged(i int, a *artifacts.Artifact, path string, c *artcompare.Comparison) {
	gr := m.groups[i]
	if m.watch.group != i || a == nil || a.Run.Partial {
		return
	}
	if c == nil {
		gr.base, gr.basePath, gr.basePicked = a, path, true
		gr.addMark(runMark{mark: "•", text: "base " + keyFigure(a, nil)})
		return
	}
	mark, worse := "✓", c.Worse()
	e := artifacts.Outcome(a)
	switch {
	case worse || len(e.Failed) > 0:
		mark = "✗"
	case e.Leak() || len(e.Rising) > 0:
		mark = "⚠"
	}
	gr.addMark(runMark{mark: mark, text: keyFigure(a, c), worse: mark == "✗"})
}

// keyFigure is a run's headline against the baseline: its first worse
// figure of the last step, else its p99, with the change and verdict
// ("p50 21.3ms +1800% worse", "p99 9.6ms +1.0% ~"); without a comparison,
// its p99.
func keyFigure(a *artifacts.Artifact, c *artcompare.Comparison) string {
	if len(a.Steps) == 0 {
		return "no step"
	}
	s := a.Steps[len(a.Steps)-1]
	text := "p99 " + compact(s.LatencyMS.P99) + "ms"
	if c == nil {
		return text
	}
	var pick *artcompare.Row
	for i, r := range c.Rows {
		switch {
		case r.Step != s.Label:
		case r.Verdict == artcompare.Worse:
			return rowFigure(r)
		case r.Metric == artcompare.MetricP99 && pick == nil:
			pick = &c.Rows[i]
		}
	}
	if pick == nil {
		return text
	}
	return rowFigure(*pick)
}

// rowFigure is a comparison row in a few words: "p50 21.3ms +1800% worse".
func rowFigure(r artcompare.Row) string {
	return rowLabel(r.Metric) + " " + metricValue(r.Metric, r.Current) + " " + paneDelta(r) + " " + report.VerdictMark(r)
}

func (gr *group) addMark(r runMark) {
	gr.history = append(gr.history, r)
	if len(gr.history) > maxHistory {
		gr.history = gr.history[len(gr.history)-maxHistory:]
	}
}

// watchLines are the loop's lines in the detail pane: its history strip,
// newest last (cut on the left to fit), and a failed build's last lines.
func (m *Model) watchLines(gr *group, w int) []string {
	if m.watch.changes == nil && len(gr.history) == 0 {
		return nil
	}
	head := "watch "
	if !m.watch.on {
		head = "watch off "
	}
	var parts []string
	for _, r := range gr.history {
		style := m.st.Dim
		if r.worse {
			style = m.st.Error
		}
		parts = append(parts, style.Render(r.mark+" "+r.text))
	}
	strip := strings.Join(parts, m.st.Dim.Render(" · "))
	if len(parts) == 0 {
		strip = m.st.Dim.Render("save a file under " + strings.Join(m.watch.paths, ", ") + " to rebuild and rerun")
	}
	for len1(head)+len1(strip) > w && len(parts) > 1 {
		parts = parts[1:]
		strip = m.st.Dim.Render("… ") + strings.Join(parts, m.st.Dim.Render(" · "))
	}
	lines := []string{fit(m.st.Bold.Render(head)+strip, w)}
	if gr == m.groups[max(m.watch.group, 0)] {
		for _, l := range m.watch.buildFailed {
			lines = append(lines, m.st.Error.Render(fit("  "+l, w)))
		}
	}
	return lines
}

// buildTailLines is how many of a failed build's last lines the pane
// shows.
const buildTailLines = 6

// lastLines is an io.Writer that keeps the last n lines written to it,
// each cut to 200 bytes and stripped of control bytes (a compiler's
// output reaches the screen).
type lastLines struct {
	n       int
	partial []byte
	kept    []string
}

func (l *lastLines) Write(p []byte) (int, error) {
	for _, b := range p {
		if b != '\n' {
			if len(l.partial) < 200 {
				l.partial = append(l.partial, b)
			}
			continue
		}
		l.keep(string(l.partial))
		l.partial = l.partial[:0]
	}
	return len(p), nil
}

func (l *lastLines) keep(line string) {
	l.kept = append(l.kept, clean(line))
	if len(l.kept) > l.n {
		l.kept = l.kept[len(l.kept)-l.n:]
	}
}

// lines returns the kept lines, the unfinished last one included.
func (l *lastLines) lines() []string {
	if len(l.partial) > 0 {
		l.keep(string(l.partial))
		l.partial = nil
	}
	return l.kept
}

// dropControl drops control characters but tabs, which become spaces.
func dropControl(r rune) rune {
	switch {
	case r == '\t':
		return ' '
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return -1
	}
	return r
}
