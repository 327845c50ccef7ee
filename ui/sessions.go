package ui

import (
	"fmt"
	"sync"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
)

// Sessions tracks every session the console started and whether its final
// artifact was written, so the caller can stop and export them on every
// way out: a quit, a signal, a panic in the model. It is safe from any
// goroutine.
type Sessions struct {
	mu       sync.Mutex
	list     []*engine.Session
	exported map[*engine.Session]exported
}

// exported is where a session's final artifact went and how the run ended.
type exported struct {
	path    string
	ending  string
	partial bool
	failed  bool // a check failed
}

// NewSessions returns an empty registry.
func NewSessions() *Sessions {
	return &Sessions{exported: map[*engine.Session]exported{}}
}

// Add registers a started session.
func (s *Sessions) Add(sess *engine.Session) {
	s.mu.Lock()
	s.list = append(s.list, sess)
	s.mu.Unlock()
}

// markExported records that sess's final artifact a is at path.
func (s *Sessions) markExported(sess *engine.Session, path string, a *artifacts.Artifact) {
	e := exported{path: path, ending: artifacts.Outcome(a).String(), partial: a.Run.Partial, failed: a.Failed()}
	s.mu.Lock()
	s.exported[sess] = e
	s.mu.Unlock()
}

// Summary is an entry per session the console started, in order: the
// group, how its run ended and its artifact (or that none was written),
// in aligned columns, for the terminal once the console has closed. An
// entry wider than width has its artifact on a second line, indented, so
// that a narrow terminal does not wrap it. Nil when nothing ran.
func (s *Sessions) Summary(width int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	idW, endW := 0, 0
	for _, sess := range s.list {
		idW = max(idW, len1(sess.Group().ID))
		endW = max(endW, len1(s.exported[sess].ending))
	}
	var out []string
	for _, sess := range s.list {
		e, ok := s.exported[sess]
		head := padRight(sess.Group().ID, idW) + "  "
		if !ok {
			out = append(out, head+"no artifact written")
			continue
		}
		file := e.path
		if e.partial {
			file += " (partial)"
		}
		if line := padRight(e.ending, endW) + "  " + file; len1(head+line) <= width {
			out = append(out, head+line)
			continue
		}
		out = append(out, head+e.ending+"\n  "+file)
	}
	return out
}

// Failed reports whether a run whose artifact was written failed a
// check: the console then exits 1, as run does.
func (s *Sessions) Failed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.exported {
		if e.failed {
			return true
		}
	}
	return false
}

// pending returns the sessions whose final artifact is not written yet.
func (s *Sessions) pending() []*engine.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*engine.Session
	for _, sess := range s.list {
		if _, ok := s.exported[sess]; !ok {
			out = append(out, sess)
		}
	}
	return out
}

// Shutdown stops every session still running (why goes into the artifact
// as a stopped event), waits up to wait for them to end, and writes the
// artifact of each session not yet exported to dir: partial when a step
// was cut. It returns the paths written and the errors met.
func (s *Sessions) Shutdown(dir, why string, wait time.Duration) ([]string, []error) {
	pending := s.pending()
	for _, sess := range pending {
		sess.Stop(why)
	}
	waitAll(pending, wait)
	var paths []string
	var errs []error
	for _, sess := range pending {
		a := sess.Result()
		path, err := artifacts.Write(dir, a)
		if err != nil {
			errs = append(errs, fmt.Errorf("exporting %s: %w", a.Group.ID, err))
			continue
		}
		s.markExported(sess, path, a)
		paths = append(paths, path)
	}
	return paths, errs
}

// waitAll waits until every session has ended or wait has passed.
func waitAll(list []*engine.Session, wait time.Duration) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for _, sess := range list {
		select {
		case <-sess.Done():
		case <-deadline.C:
			return
		}
	}
}
