package engine

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/watch"
)

// Followed is a watched target that a restart action may replace with a
// new process: its handle (PID, Signal, Exited) and its samples are always
// the current process's, so the step's RSS and fds come from the new pid
// once the target has been restarted.
type Followed struct {
	mu      sync.Mutex
	p       *watch.Process
	sampler *watch.Sampler
}

var (
	_ runners.TargetHandle = (*Followed)(nil)
	_ Watcher              = (*Followed)(nil)
)

// NewFollowed follows p until Replace.
func NewFollowed(p *watch.Process) *Followed {
	return &Followed{p: p, sampler: p.Sampler()}
}

// Replace makes p the followed process.
func (f *Followed) Replace(p *watch.Process) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.p != p {
		f.p, f.sampler = p, p.Sampler()
	}
}

// Process is the followed process.
func (f *Followed) Process() *watch.Process {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.p
}

// PID is the current process's id.
func (f *Followed) PID() int { return f.Process().PID() }

// Signal signals the current process.
func (f *Followed) Signal(sig os.Signal) error { return f.Process().Signal(sig) }

// Exited is closed when the current process exits; after a restart it is
// the new process's channel.
func (f *Followed) Exited() <-chan struct{} { return f.Process().Exited() }

// ExitStatus is how the current process exited ("" while it runs).
func (f *Followed) ExitStatus() string { return f.Process().ExitStatus() }

// Sample samples the current process.
func (f *Followed) Sample() (watch.Sample, error) {
	s, _, err := f.samplePID()
	return s, err
}

// samplePID samples the current process and says which one it was.
func (f *Followed) samplePID() (watch.Sample, int, error) {
	f.mu.Lock()
	sampler, pid := f.sampler, f.p.PID()
	f.mu.Unlock()
	s, err := sampler.Sample()
	return s, pid, err
}

// sampleOf samples w and names the process sampled (0 when unknown).
func sampleOf(w Watcher) (watch.Sample, int, error) {
	if f, ok := w.(*Followed); ok {
		return f.samplePID()
	}
	s, err := w.Sample()
	return s, 0, err
}

// Targets lets a session's actions reach the run's targets: signal one
// that is running, restart one that benchtui spawned. *Run is one.
type Targets interface {
	// Running is the named target's process, nil when it is not started.
	Running(name string) runners.TargetHandle
	// Restart stops the named target if it still runs, starts it again
	// from its command, waits until it is ready, and makes every session
	// that watches it follow the new process.
	Restart(ctx context.Context, name string) (oldPID, newPID int, err error)
}

var _ Targets = (*Run)(nil)

// follow is the Followed of the named target for a new session: the
// target, started if it is not running, as every session of the run
// follows it.
func (r *Run) follow(ctx context.Context, name string) (*Followed, error) {
	p, err := r.Target(ctx, name)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.followers == nil {
		r.followers = map[string]*Followed{}
	}
	f := r.followers[name]
	if f == nil {
		f = NewFollowed(p)
		r.followers[name] = f
	}
	f.Replace(p)
	return f, nil
}

// Running implements Targets.
func (r *Run) Running(name string) runners.TargetHandle {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f := r.followers[name]; f != nil {
		return f
	}
	if p := r.targets[name]; p != nil {
		return p
	}
	return nil
}

// Restart implements Targets. The old process is stopped first (at once
// when it has already exited, as after a KILL action); the new one is
// stopped by Close, like any target of the run.
func (r *Run) Restart(ctx context.Context, name string) (oldPID, newPID int, err error) {
	spec := r.Plan.Targets[name]
	if spec == nil || len(spec.Command) == 0 {
		return 0, 0, fmt.Errorf("restarting target %s: not a target benchtui spawned", name)
	}
	r.restartMu.Lock() // one restart at a time; Target and Running go on meanwhile
	defer r.restartMu.Unlock()
	r.mu.Lock()
	old := r.targets[name]
	r.mu.Unlock()
	if old != nil {
		oldPID = old.PID()
		if err := old.Stop(); err != nil {
			return oldPID, 0, fmt.Errorf("restarting target %s: %w", name, err)
		}
	}
	p, err := watch.Start(ctx, targetConfig(spec, name, r.Dir))
	if err != nil {
		return oldPID, 0, fmt.Errorf("restarting target %s: %w", name, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		_ = p.Stop() // the run ended meanwhile: leave nothing running
		return oldPID, 0, fmt.Errorf("restarting target %s: the run has ended", name)
	}
	r.targets[name] = p
	if f := r.followers[name]; f != nil {
		f.Replace(p)
	}
	return oldPID, p.PID(), nil
}
