// Package orchestrate keeps the artifacts of the sessions a front end
// runs: the headless `run`, the console and `bisect` share it, so the
// rules of writing a group's figures live in one place:
//
//   - each session's final artifact is written exactly once, by whoever
//     asks first (the session's own end, a quit, a signal, a panic in the
//     console, a second interrupt), and every later ask gets that write;
//   - a session cut short is written partial (the engine marks it), and a
//     shutdown stops what still runs, gives it a bounded wait, then writes
//     what it has;
//   - figures a float cannot hold (NaN, ±Inf) are written as 0 and said;
//   - the process may exit holding the writer (Hold), so never in the
//     middle of a write, which would leave a temporary file behind.
package orchestrate

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
)

// Stored is a session's final artifact: where it was written and how
// writing it went. Err set means the figures are lost (Path is "").
type Stored struct {
	Artifact *artifacts.Artifact
	Path     string
	Err      error
	// Floats says which figures were NaN or ±Inf and written as 0; ""
	// when none was.
	Floats string
}

// Keeper writes the artifacts of the sessions added to it into Dir. It
// is safe from any goroutine.
type Keeper struct {
	dir string
	// onStored, unless nil, is told of each final write as it happens,
	// with the writer held (a front end's "artifact PATH" line).
	onStored func(Stored)

	mu     sync.Mutex
	list   []*engine.Session
	stored map[*engine.Session]Stored
}

// New returns a Keeper writing into dir; onStored (may be nil) is told of
// each final write.
func New(dir string, onStored func(Stored)) *Keeper {
	return &Keeper{dir: dir, onStored: onStored, stored: map[*engine.Session]Stored{}}
}

// Dir is the folder the artifacts go to.
func (k *Keeper) Dir() string { return k.dir }

// Add registers a session, before it starts.
func (k *Keeper) Add(sess *engine.Session) {
	k.mu.Lock()
	k.list = append(k.list, sess)
	k.mu.Unlock()
}

// Sessions makes a group's session, starting its target when needed: an
// engine.Run, or a front end's stand-in for one.
type Sessions interface {
	Session(ctx context.Context, g *plan.Group) (*engine.Session, error)
}

// Start is how every front end runs a group: it gets g's session from
// src, registers it (so its artifact is written on every way out) and
// starts it. The session's snapshots and its end are the caller's to
// read; Final then gives its artifact.
func (k *Keeper) Start(ctx context.Context, src Sessions, g *plan.Group) (*engine.Session, error) {
	sess, err := src.Session(ctx, g)
	if err != nil {
		return nil, err
	}
	k.Add(sess)
	sess.Start(ctx)
	return sess, nil
}

// Final waits for sess to end and returns its final artifact, writing it
// unless that is done.
func (k *Keeper) Final(sess *engine.Session) Stored {
	<-sess.Done()
	return k.store(sess)
}

// store writes the final artifact of sess once, whoever asks first.
func (k *Keeper) store(sess *engine.Session) Stored {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.storeLocked(sess)
}

func (k *Keeper) storeLocked(sess *engine.Session) Stored {
	if s, ok := k.stored[sess]; ok {
		return s
	}
	s := k.write(sess.Result())
	k.stored[sess] = s
	if k.onStored != nil {
		k.onStored(s)
	}
	return s
}

// write stores a, saying which figures were not finite.
func (k *Keeper) write(a *artifacts.Artifact) Stored {
	s := Stored{Artifact: a, Floats: artifacts.SanitizeFloats(a)}
	s.Path, s.Err = artifacts.Write(k.dir, a)
	if s.Err != nil {
		s.Path = ""
	}
	return s
}

// Interim writes what sess has measured so far (the console's export
// key), not its final artifact: the final write still comes.
func (k *Keeper) Interim(sess *engine.Session) Stored {
	return k.write(sess.Result())
}

// Shutdown stops every session whose final artifact is not written (why
// goes into its artifact as the stopped event), waits up to wait for them
// to end, and writes each one's artifact: partial when a step was cut.
// It returns those writes, in the order the sessions were added.
func (k *Keeper) Shutdown(why string, wait time.Duration) []Stored {
	pending := k.pending()
	for _, sess := range pending {
		sess.Stop(why)
	}
	waitAll(pending, wait)
	out := make([]Stored, 0, len(pending))
	for _, sess := range pending {
		out = append(out, k.store(sess))
	}
	return out
}

// Hold waits for a write in flight, writes the final artifact of sess
// (nil for none) unless that is done, and keeps the writer: no write
// starts after it. For a process about to exit at once. It returns the
// final artifact of sess (zero for none).
func (k *Keeper) Hold(sess *engine.Session) Stored {
	k.mu.Lock()
	if sess == nil {
		return Stored{}
	}
	return k.storeLocked(sess)
}

// Entry is one session the keeper was given and, once written, its final
// artifact.
type Entry struct {
	Session *engine.Session
	Stored  Stored
	Written bool
}

// Entries are the sessions in the order they were added, each with its
// final artifact when written.
func (k *Keeper) Entries() []Entry {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]Entry, len(k.list))
	for i, sess := range k.list {
		s, ok := k.stored[sess]
		out[i] = Entry{Session: sess, Stored: s, Written: ok}
	}
	return out
}

// Pending reports how many sessions have no final artifact yet.
func (k *Keeper) Pending() int { return len(k.pending()) }

func (k *Keeper) pending() []*engine.Session {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []*engine.Session
	for _, sess := range k.list {
		if _, ok := k.stored[sess]; !ok {
			out = append(out, sess)
		}
	}
	return out
}

// Errors are the failed final writes, each naming its group.
func (k *Keeper) Errors() []error {
	var errs []error
	for _, e := range k.Entries() {
		if e.Written && e.Stored.Err != nil {
			errs = append(errs, fmt.Errorf("exporting %s: %w", e.Session.Group().ID, e.Stored.Err))
		}
	}
	return errs
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
