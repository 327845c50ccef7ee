package ui

import (
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/orchestrate"
)

// Sessions tracks every session the console started and its final
// artifact, so the caller can stop and export them on every way out: a
// quit, a signal, a panic in the model. The writing is the orchestrator's
// (one write per session, whoever asks first); this adds what the console
// shows of it. It is safe from any goroutine.
type Sessions struct {
	keep *orchestrate.Keeper
}

// NewSessions returns an empty registry writing artifacts into dir.
func NewSessions(dir string) *Sessions {
	return &Sessions{keep: orchestrate.New(dir, nil)}
}

// Add registers a session before it starts.
func (s *Sessions) Add(sess *engine.Session) { s.keep.Add(sess) }

// Summary is an entry per session the console started, in order: the
// group, how its run ended and its artifact (or that none was written),
// in aligned columns, for the terminal once the console has closed. An
// entry wider than width has its artifact on a second line, indented, so
// that a narrow terminal does not wrap it. Nil when nothing ran.
func (s *Sessions) Summary(width int) []string {
	entries := s.keep.Entries()
	endings := make([]string, len(entries))
	idW, endW := 0, 0
	for i, e := range entries {
		if e.Written && e.Stored.Err == nil {
			endings[i] = artifacts.Outcome(e.Stored.Artifact).String()
		}
		idW = max(idW, len1(e.Session.Group().ID))
		endW = max(endW, len1(endings[i]))
	}
	var out []string
	for i, e := range entries {
		head := padRight(e.Session.Group().ID, idW) + "  "
		if !e.Written || e.Stored.Err != nil {
			out = append(out, head+"no artifact written")
			continue
		}
		file := e.Stored.Path
		if e.Stored.Artifact.Run.Partial {
			file += " (partial)"
		}
		if line := padRight(endings[i], endW) + "  " + file; len1(head+line) <= width {
			out = append(out, head+line)
			continue
		}
		out = append(out, head+endings[i]+"\n  "+file)
	}
	return out
}

// Failed reports whether a run whose artifact was written failed a
// check: the console then exits 1, as run does.
func (s *Sessions) Failed() bool {
	for _, e := range s.keep.Entries() {
		if e.Written && e.Stored.Err == nil && e.Stored.Artifact.Failed() {
			return true
		}
	}
	return false
}

// pending reports how many sessions have no final artifact yet.
func (s *Sessions) pending() int { return s.keep.Pending() }

// Shutdown stops every session still running (why goes into the artifact
// as a stopped event), waits up to wait for them to end, and writes the
// artifact of each session not yet exported: partial when a step was cut.
// It returns the paths it wrote and every final write that failed, this
// one's or an earlier one's (the figures lost: the console must not exit
// 0).
func (s *Sessions) Shutdown(why string, wait time.Duration) ([]string, []error) {
	var paths []string
	for _, w := range s.keep.Shutdown(why, wait) {
		if w.Err == nil {
			paths = append(paths, w.Path)
		}
	}
	return paths, s.keep.Errors()
}
