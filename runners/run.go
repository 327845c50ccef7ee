package runners

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/benchtui/benchtui/runners/target"
)

// Run is one run of a plan: it starts each target the run's groups use
// once, hands out sessions, and on Close stops the targets and runs every
// cleanup (embedded servers), on every way out.
type Run struct {
	Plan        *Plan
	Dir         string // artifacts and logs
	ID          string
	ToolVersion string
	// Duration, when positive, replaces every step's duration.
	Duration time.Duration

	mu       sync.Mutex
	targets  map[string]*target.Process
	cleanups []func()
	self     *target.Sampler
}

// NewRun prepares a run of plan writing to dir.
func NewRun(plan *Plan, dir, toolVersion string) *Run {
	var id [6]byte
	rand.Read(id[:])
	return &Run{
		Plan: plan, Dir: dir, ToolVersion: toolVersion,
		ID:      time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(id[:]),
		targets: map[string]*target.Process{},
		self:    target.SelfSampler(),
	}
}

// Session starts g's target if it is not running yet and returns a session
// for g, not yet started.
func (r *Run) Session(ctx context.Context, g *Group) (*Session, error) {
	opts := SessionOptions{
		Duration: r.Duration, RunID: r.ID, ToolVersion: r.ToolVersion,
		Self: r.self,
		Env:  &RunEnv{Plan: r.Plan, ArtifactsDir: r.Dir, Cleanup: r.AddCleanup},
	}
	if g.Target != "" {
		p, err := r.Target(ctx, g.Target)
		if err != nil {
			return nil, err
		}
		opts.Target, opts.Watch, opts.TargetName = p, p.Sampler(), g.Target
		opts.SampleEvery = r.Plan.Targets[g.Target].Sample.D()
	}
	return NewSession(r.Plan, g, opts)
}

// Target returns the named target, starting (or attaching to) it on first use.
func (r *Run) Target(ctx context.Context, name string) (*target.Process, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.targets[name]; p != nil {
		select {
		case <-p.Exited():
		default:
			return p, nil
		}
	}
	spec := r.Plan.Targets[name]
	if spec == nil {
		return nil, fmt.Errorf("no target named %q", name)
	}
	p, err := target.Start(ctx, spec.config(name, r.Dir))
	if err != nil {
		return nil, fmt.Errorf("starting target %s: %w", name, err)
	}
	r.targets[name] = p
	return p, nil
}

// RestartTarget stops the named target so the next session starts it anew
// (after a rebuild, say).
func (r *Run) RestartTarget(name string) error {
	r.mu.Lock()
	p := r.targets[name]
	delete(r.targets, name)
	r.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.Stop()
}

func (t *TargetSpec) config(name, logDir string) target.Config {
	return target.Config{
		Name: name, Command: t.Command, Env: t.Env, Dir: t.Dir, Ready: t.Ready,
		ReadyTimeout: t.ReadyTimeout.D(), PID: t.PID, PIDFile: t.PIDFile, Cgroup: t.Cgroup,
		Sample: t.Sample.D(), StopGrace: t.StopGrace.D(), LogDir: logDir,
	}
}

// AddCleanup registers f to run on Close, after the targets stop, in
// reverse order of registration.
func (r *Run) AddCleanup(f func()) {
	r.mu.Lock()
	r.cleanups = append(r.cleanups, f)
	r.mu.Unlock()
}

// Close stops every target the run started and runs the cleanups. It is
// safe to call more than once.
func (r *Run) Close() {
	r.mu.Lock()
	targets, cleanups := r.targets, r.cleanups
	r.targets, r.cleanups = map[string]*target.Process{}, nil
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range targets {
		wg.Go(func() { p.Stop() })
	}
	wg.Wait()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
}
