package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/watch"
)

// Run is one run of a plan: it starts each target the run's groups use
// once, hands out sessions, and on Close stops the targets and runs every
// cleanup (embedded servers), on every way out.
type Run struct {
	Plan        *plan.Plan
	Registry    *runners.Registry
	Dir         string // artifacts and logs
	ID          string
	ToolVersion string
	// VCSRevision is the commit benchtui was built from, for the artifact.
	VCSRevision string
	// Duration, when positive, replaces every step's duration.
	Duration time.Duration
	// Count, when positive, replaces every group's repeat.
	Count int
	// Shard, when active, runs this process's part of a distributed run.
	Shard runners.Shard
	// Observer, when set, follows every session of the run.
	Observer Observer
	// Requests, when set, takes every operation of the run (run
	// --requests); a sink with a Note method has it in each artifact's
	// notes.
	Requests runners.RequestSink

	mu        sync.Mutex
	targets   map[string]*watch.Process
	followers map[string]*Followed // what sessions watch: follows restarts
	closed    bool
	restartMu sync.Mutex
	// finished are the steps each group finished in this run.
	finished Finished
	cleanups []func()
	self     *watch.Sampler
}

// NewRun prepares a run of plan p, whose kinds reg knows, writing to dir.
func NewRun(p *plan.Plan, reg *runners.Registry, dir, toolVersion string) *Run {
	var id [6]byte
	rand.Read(id[:])
	return &Run{
		Plan: p, Registry: reg, Dir: dir, ToolVersion: toolVersion,
		ID:      time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(id[:]),
		targets: map[string]*watch.Process{},
		self:    watch.SelfSampler(),
	}
}

// Session starts g's target if it is not running yet and returns a session
// for g, not yet started.
func (r *Run) Session(ctx context.Context, g *plan.Group) (*Session, error) {
	g = ShardGroup(g, r.Shard)
	opts := SessionOptions{
		Duration: r.Duration, Count: r.Count, RunID: r.ID, ToolVersion: r.ToolVersion, VCSRevision: r.VCSRevision, Shard: r.Shard,
		Self: r.self, Targets: r, Observer: r.Observer, Finished: &r.finished, Requests: r.Requests,
		Env: &runners.RunEnv{Plan: r.Plan, ArtifactsDir: r.Dir, Cleanup: r.AddCleanup, Shard: r.Shard},
	}
	if g.Target != "" {
		f, err := r.follow(ctx, g.Target)
		if err != nil {
			return nil, err
		}
		opts.Target, opts.Watch, opts.TargetName = f, f, g.Target
		opts.SampleEvery = r.Plan.Targets[g.Target].Sample.D()
		for _, name := range g.Targets[min(1, len(g.Targets)):] {
			f, err := r.follow(ctx, name)
			if err != nil {
				return nil, err
			}
			opts.Others = append(opts.Others, WatchedTarget{Name: name, Handle: f, Watch: f})
		}
	}
	return NewSession(r.Registry, r.Plan, g, opts)
}

// Target returns the named target, starting (or attaching to) it on first use.
func (r *Run) Target(ctx context.Context, name string) (*watch.Process, error) {
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
	p, err := watch.Start(ctx, targetConfig(spec, name, r.Dir))
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

// targetConfig is how the watch package starts or attaches to a plan target.
// A `log: {command: …}` is spawned with the target, its output in
// <logDir>/<name>-log.log.
func targetConfig(t *plan.TargetSpec, name, logDir string) watch.Config {
	c := watch.Config{
		Name: name, Command: t.Command, Env: t.Env, Dir: t.Dir, Ready: t.Ready,
		ReadyTimeout: t.ReadyTimeout.D(), PID: t.PID, PIDFile: t.PIDFile, Cgroup: t.Cgroup, Tree: t.Tree,
		Container: t.Container, Runtime: t.Runtime,
		Sample: t.Sample.D(), StopGrace: t.StopGrace.D(), LogDir: logDir,
	}
	if t.Log != nil {
		c.LogCommand = t.Log.Command
	}
	return c
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
	r.targets, r.cleanups, r.followers = map[string]*watch.Process{}, nil, nil
	r.closed = true
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
