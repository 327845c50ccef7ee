package ui

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/benchtui/benchtui/artifacts"
	artcompare "github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/watch"
)

// Messages that Cmds hand back to Update. Each carries the group's index.
type (
	// SnapshotMsg is a session's newest snapshot.
	SnapshotMsg struct {
		Group int
		Sess  *engine.Session
		Snap  engine.Snapshot
	}
	// endedMsg says a session's snapshot channel closed: it has ended.
	endedMsg struct {
		group int
		sess  *engine.Session
	}
	startedMsg struct {
		group int
		sess  *engine.Session
		at    time.Time
		err   error
	}
	exportedMsg struct {
		group int
		path  string
		art   *artifacts.Artifact
		final bool
		err   error
	}
	baselineMsg struct {
		group  int
		path   string
		art    *artifacts.Artifact
		picked bool
		// newest is the group's newest artifact, partial or not: its last
		// result, when the baseline passed partial runs over.
		newest *artifacts.Artifact
		err    error
	}
	// CompareMsg is a comparison of a group's baseline with its current result.
	CompareMsg struct {
		Group int
		Cmp   artcompare.Comparison
		base  *artifacts.Artifact // the baseline judged against
		// final is the exported artifact judged (nil for a run so far),
		// and path its file.
		final *artifacts.Artifact
		path  string
	}
	statusMsg struct {
		text  string
		isErr bool
	}
	rebuiltMsg struct {
		target string
		built  bool // its build: ran (else it was only restarted)
		err    error
		// tail is the build output's last lines (the compiler's errors).
		tail []string
	}
	quitNowMsg struct{}
)

// waitSnapshot waits for the next snapshot of sess. It captures the
// channel, never the model, and is re-armed after each message.
func waitSnapshot(i int, sess *engine.Session, ch <-chan engine.Snapshot) tea.Cmd {
	return func() tea.Msg {
		snap, ok := <-ch
		if !ok {
			return endedMsg{group: i, sess: sess}
		}
		return SnapshotMsg{Group: i, Sess: sess, Snap: snap}
	}
}

// startSession gets a session for g (starting its target when needed) and
// starts it.
func startSession(ctx context.Context, eng Engine, reg *Sessions, i int, g *plan.Group) tea.Cmd {
	return func() tea.Msg {
		// Artifact names keep milliseconds: the cut-off for the baseline
		// must not fall after this run's own start within the same one.
		at := time.Now().Truncate(time.Millisecond)
		sess, err := reg.keep.Start(ctx, eng, g)
		if err != nil {
			return startedMsg{group: i, err: err}
		}
		return startedMsg{group: i, sess: sess, at: at}
	}
}

// export writes sess's artifact so far; final waits for the session's
// end and writes its final artifact (once, whoever asks first: a quit
// writing what is pending may come before).
func export(reg *Sessions, i int, sess *engine.Session, final bool) tea.Cmd {
	return func() tea.Msg {
		w := reg.keep.Interim
		if final {
			w = reg.keep.Final
		}
		s := w(sess)
		return exportedMsg{group: i, path: s.Path, art: s.Artifact, final: final, err: s.Err}
	}
}

// loadBaseline reads the group's newest whole artifact that started before
// t: a partial run (stopped, quit) is never the default baseline.
func loadBaseline(i int, dir, id string, before time.Time) tea.Cmd {
	return func() tea.Msg {
		path, a, skipped, err := artifacts.NewestComplete(dir, id, before)
		msg := baselineMsg{group: i, path: path, art: a, newest: a, err: err}
		if len(skipped) > 0 {
			msg.newest = skipped[0]
		}
		return msg
	}
}

// loadPicked reads the baseline the operator picked.
func loadPicked(i int, path string) tea.Cmd {
	return func() tea.Msg {
		a, err := artifacts.Load(path)
		return baselineMsg{group: i, path: path, art: a, picked: true, err: err}
	}
}

// compare judges sess's result so far against base.
func compare(i int, base *artifacts.Artifact, sess *engine.Session) tea.Cmd {
	return func() tea.Msg {
		c := artcompare.Compare([]*artifacts.Artifact{base}, []*artifacts.Artifact{sess.Result()}, artcompare.CompareOptions{})
		return CompareMsg{Group: i, Cmp: c, base: base}
	}
}

// compareFinal judges the exported artifact a, written at path, against
// base.
func compareFinal(i int, base, a *artifacts.Artifact, path string) tea.Cmd {
	return func() tea.Msg {
		c := artcompare.Compare([]*artifacts.Artifact{base}, []*artifacts.Artifact{a}, artcompare.CompareOptions{})
		return CompareMsg{Group: i, Cmp: c, base: base, final: a, path: path}
	}
}

// control runs one of the session's controls off the update loop and
// reports what it did.
func control(f func() (string, bool)) tea.Cmd {
	return func() tea.Msg {
		text, ok := f()
		return statusMsg{text: text, isErr: !ok}
	}
}

// rebuild runs the target's build command, its output to log, then has
// the engine restart the target; without a build command it only
// restarts it.
func rebuild(ctx context.Context, eng Engine, name string, spec *plan.TargetSpec, log io.Writer) tea.Cmd {
	return func() tea.Msg {
		if len(spec.Build) == 0 {
			if err := eng.RestartTarget(name); err != nil {
				return rebuiltMsg{target: name, err: fmt.Errorf("restarting %s: %w", name, err)}
			}
			return rebuiltMsg{target: name}
		}
		fmt.Fprintf(log, "--- rebuild %s: %q\n", name, spec.Build)
		tail := &lastLines{n: buildTailLines}
		out := io.MultiWriter(log, tail)
		cmd := spec.BuildCommand(ctx)
		cmd.Stdout, cmd.Stderr = out, out
		if err := watch.RunTied(cmd); err != nil { // tied to benchtui's life, a cancel kills the whole build
			return rebuiltMsg{target: name, err: fmt.Errorf("building %s: %w", name, err), tail: tail.lines()}
		}
		if err := eng.RestartTarget(name); err != nil {
			return rebuiltMsg{target: name, err: fmt.Errorf("restarting %s: %w", name, err)}
		}
		return rebuiltMsg{target: name, built: true}
	}
}

// logLine is a log record stamped now.
func logLine(level slog.Level, msg string, args ...any) slog.Record {
	r := slog.NewRecord(time.Now(), level, msg, 0)
	r.Add(args...)
	return r
}

func (m *Model) logInfo(msg string, args ...any) {
	m.logs = append(m.logs, logLine(slog.LevelInfo, msg, args...))
}

// writeLog writes the records Update gathered.
func writeLog(l *slog.Logger, recs []slog.Record) tea.Cmd {
	return func() tea.Msg {
		for _, r := range recs {
			l.Handler().Handle(context.Background(), r)
		}
		return nil
	}
}

// quitAfter bounds the wait for sessions to stop on quit.
func quitAfter(d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return quitNowMsg{} })
}
