package engine

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"sync"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// Tick is how often the engine merges the workers' histograms and
// publishes a snapshot.
const Tick = 250 * time.Millisecond

// DefaultGrace is how long in-flight operations may finish after a step
// stops starting new ones.
const DefaultGrace = 2 * time.Second

// SessionOptions tune a session.
type SessionOptions struct {
	// Duration, when positive, replaces every step's duration (quick tries).
	Duration time.Duration
	// Count, when positive, replaces every group's repeat (run --count).
	Count int
	// Grace bounds the wait for in-flight operations at a step's end.
	Grace time.Duration
	// Target is the group's watched target and Watch samples it; both may
	// be nil. TargetName labels its figures.
	Target     runners.TargetHandle
	Watch      Watcher
	TargetName string
	// Others are the group's further targets (after Target), each watched
	// and summed with it; their samples follow Target's period.
	Others []WatchedTarget
	// Targets gives actions the run's targets (signal, restart); nil
	// without a Run: then only the group's Target can be signalled.
	Targets Targets
	// Self samples benchtui's own process; nil means no self figures.
	Self Watcher
	// SampleEvery is the sampling period (default SampleEvery).
	SampleEvery time.Duration
	// Env is passed to the runner kind's New.
	Env *runners.RunEnv
	// RunID, ToolVersion and VCSRevision go into the artifact.
	RunID       string
	ToolVersion string
	VCSRevision string
	// Shard is this process's part of a distributed run; the zero Shard
	// runs the whole load (shard.go).
	Shard runners.Shard
	// Observer, when set, sees every snapshot and every step's result.
	Observer Observer
	// Finished holds the steps of the run's groups: the session adds its
	// own, and its checks read those of the groups it refers to. Nil: a
	// check that refers to another group fails, saying it has not run.
	Finished *Finished
	// Requests, when set, takes every operation the steps record (run
	// --requests); a sink with a Note method has it in the artifact's
	// notes.
	Requests runners.RequestSink
}

// Observer follows a session's figures from outside its consumer (a
// metrics endpoint beside the console or the headless printer). Its
// methods are called on the session's goroutines, in order, and must
// neither block nor call back into the session.
type Observer interface {
	// Snapshot is every snapshot as it is published.
	Snapshot(Snapshot)
	// Step is a step's result as the session keeps it: the figures its
	// artifact will hold (a repeated step's runs merged).
	Step(group string, s *artifacts.Step)
}

// LatencyObserver is an Observer that wants every snapshot of a running
// step to carry the step's latency histogram so far
// (Snapshot.TotalLatency): a Prometheus histogram is built from it. The
// copy costs a histogram per tick, so only an observer that says so
// gets one.
type LatencyObserver interface {
	Observer
	ObservesLatency() bool
}

// observesLatency says whether o wants Snapshot.TotalLatency.
func observesLatency(o Observer) bool {
	lo, ok := o.(LatencyObserver)
	return ok && lo.ObservesLatency()
}

func (o SessionOptions) sampleEvery() time.Duration {
	if o.SampleEvery > 0 {
		return o.SampleEvery
	}
	return SampleEvery
}

// Session runs one group: its steps one after the other. Every method is
// safe from any goroutine. The session owns every goroutine of the run and
// stops them through its context; Snapshots is closed when it ends.
type Session struct {
	plan  *plan.Plan
	group *plan.Group
	kind  runners.Kind
	hooks []runners.StepHook // the registry's addons' AfterStep
	opts  SessionOptions
	steps []plan.Step
	snaps chan Snapshot
	done  chan struct{}

	mu       sync.Mutex
	started  time.Time
	finished time.Time
	cur      *stepRun // the step being run, nil between steps
	results  []artifacts.Step
	notes    []string
	stopAll  bool
	partial  bool
	// late is a target a runner started during the run (WatchTarget),
	// and its sampler.
	late       Watcher
	lateHandle runners.TargetHandle
	lateName   string
	err        error
	cancel     context.CancelFunc
	// shardOffset is the next step's start after the shard's StartAt
	// (shard.go).
	shardOffset time.Duration
	// remote, for a session that runs nothing, is where its snapshots
	// come from (remote.go).
	remote <-chan Snapshot
}

// NewSession prepares a session for group g of plan p, whose runner kind
// reg names.
func NewSession(reg *runners.Registry, p *plan.Plan, g *plan.Group, opts SessionOptions) (*Session, error) {
	kind, ok := reg.Kind(g.Runner)
	if !ok {
		return nil, fmt.Errorf("group %s: unknown runner %q", g.ID, g.Runner)
	}
	var hooks []runners.StepHook
	for _, a := range reg.Addons() {
		// A shard runs no hook that has a Merged one: it runs on the merge.
		if a.AfterStep != nil && (!opts.Shard.Active() || a.Merged == nil) {
			hooks = append(hooks, a.AfterStep)
		}
	}
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.Env == nil {
		opts.Env = &runners.RunEnv{Plan: p, Cleanup: func(func()) {}}
	}
	return &Session{
		plan: p, group: g, kind: kind, hooks: hooks, opts: opts,
		steps: plan.Steps(g, opts.Duration),
		snaps: make(chan Snapshot, 1),
		done:  make(chan struct{}),
	}, nil
}

// Group is the group the session runs.
func (s *Session) Group() *plan.Group { return s.group }

// Steps is the number of steps the session will run.
func (s *Session) Steps() int { return len(s.steps) }

// Snapshots delivers the newest snapshot; older ones are dropped when the
// reader is slow. It is closed when the session ends.
func (s *Session) Snapshots() <-chan Snapshot { return s.snaps }

// Done is closed when the session has ended and Result is final.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err is the error that ended the session early, if any.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Start runs the session's steps in a goroutine of the session's own.
func (s *Session) Start(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.started = time.Now()
	s.cancel = cancel
	s.mu.Unlock()
	if s.remote != nil {
		go s.relay(ctx)
		return
	}
	go s.run(ctx)
}

func (s *Session) run(ctx context.Context) {
	s.opts.Finished.begin(s.group.ID)
	defer close(s.done)
	defer close(s.snaps)
	defer s.cancel()
	defer s.containPanic() // in New, Prepare or Close: the steps done are kept
	runner, err := s.kind.New(s.group, s.opts.Env)
	if err != nil {
		s.fail(fmt.Errorf("group %s: %w", s.group.ID, err))
		return
	}
	defer runner.Close()
	last := -1
	for i, spec := range s.steps {
		if s.stopping() || ctx.Err() != nil {
			break
		}
		res, err := s.runStep(ctx, runner, i, spec)
		s.finishStep(res, err)
		last = i
		if err != nil {
			break
		}
	}
	if last >= 0 {
		s.groupTeardown(context.WithoutCancel(ctx), newStepRun(s, runner, last, s.steps[last]))
	}
	s.mu.Lock()
	s.finished = time.Now()
	s.mu.Unlock()
}

// checkContext is what the checks of the session's next step read: the
// steps it finished, and those of the run's other groups.
func (s *Session) checkContext() CheckContext {
	s.mu.Lock()
	defer s.mu.Unlock()
	return CheckContext{Earlier: append([]artifacts.Step(nil), s.results...), Groups: s.opts.Finished.Steps}
}

func (s *Session) setCurrent(st *stepRun) {
	s.mu.Lock()
	s.cur = st
	s.mu.Unlock()
}

func (s *Session) finishStep(res *artifacts.Step, err error) {
	if o := s.opts.Observer; o != nil && res != nil {
		o.Step(s.group.ID, res)
	}
	if res != nil {
		s.opts.Finished.add(s.group.ID, *res)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur = nil
	if res != nil {
		s.results = append(s.results, *res)
	}
	if err != nil && s.err == nil {
		s.err = err
	}
}

// containPanic, deferred in the session's goroutine, turns a panic of the
// runner's own calls (New, Prepare, Close) into the session's error, so
// the caller still writes the steps already done and restores the
// terminal. A step's load goroutines have their own (StepEnv.Contain).
func (s *Session) containPanic() {
	if v := recover(); v != nil {
		s.finishStep(nil, nil) // the step in progress, if any, is over
		s.fail(fmt.Errorf("group %s: runner panicked: %v in %s", s.group.ID, v, runners.PanicSite()))
	}
}

func (s *Session) fail(err error) {
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
	s.publish(Snapshot{GroupID: s.group.ID, State: StateFailed, Err: err, Steps: len(s.steps)})
}

func (s *Session) stopping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopAll
}

// publish hands snap to the reader, replacing an unread older one.
func (s *Session) publish(snap Snapshot) {
	if o := s.opts.Observer; o != nil {
		o.Snapshot(snap)
	}
	for {
		select {
		case s.snaps <- snap:
			return
		default:
		}
		select {
		case <-s.snaps:
		default:
		}
	}
}

func (s *Session) current() *stepRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// Pause stops the clock and holds the workers; it returns false when
// nothing was running or it was already paused.
func (s *Session) Pause() bool {
	if st := s.current(); st != nil && !s.opts.Shard.Active() {
		return st.pause()
	}
	return false
}

// Resume undoes Pause.
func (s *Session) Resume() bool {
	if st := s.current(); st != nil {
		return st.resume()
	}
	return false
}

// Extend lengthens the running step by d of active time.
func (s *Session) Extend(d time.Duration, why string) bool {
	if st := s.current(); st != nil && !s.opts.Shard.Active() {
		return st.extend(d, why)
	}
	return false
}

// StopStep ends the running step early (it is kept, marked by a stopped
// event); the next step, if any, starts.
func (s *Session) StopStep(why string) {
	if st := s.current(); st != nil {
		st.stop(why)
	}
}

// Stop ends the session: the running step stops (its figures are kept and
// the artifact is marked partial) and no further step starts.
func (s *Session) Stop(why string) {
	s.mu.Lock()
	s.stopAll = true
	if s.remote != nil && s.cancel != nil {
		s.cancel() // the relay ends; the remote run goes on
	}
	st := s.cur
	if st != nil {
		s.partial = true
	}
	s.mu.Unlock()
	if st != nil {
		st.stop(why)
	}
}

// watcher is the watched target's sampler and name: the plan's target,
// else one a runner named, else none.
func (s *Session) watcher() (Watcher, string) {
	if s.opts.Watch != nil {
		return s.opts.Watch, s.opts.TargetName
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.late, s.lateName
}

func (s *Session) watchLate(name string, w Watcher, t runners.TargetHandle) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.Watch == nil {
		s.late, s.lateHandle, s.lateName = w, t, name
	}
}

// lateTarget is the target a runner started (WatchTarget) and its name;
// nil when none, or when the group has a target of its own.
func (s *Session) lateTarget() (runners.TargetHandle, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lateHandle, s.lateName
}

func (s *Session) markPartial() {
	s.mu.Lock()
	s.partial = true
	s.mu.Unlock()
}

// Note records an operator's note in the artifact (and as an event of the
// running step).
func (s *Session) Note(text string) {
	text = s.plan.Redact(text)
	if st := s.current(); st != nil {
		st.event(artifacts.EventNote, text)
	}
	s.mu.Lock()
	s.notes = append(s.notes, text)
	s.mu.Unlock()
}

// Result is the artifact of what has been measured so far: the finished
// steps and, while one runs, the running step's figures (the artifact is
// then partial). It may be called at any time.
func (s *Session) Result() *artifacts.Artifact {
	s.mu.Lock()
	steps := append([]artifacts.Step(nil), s.results...)
	cur, partial := s.cur, s.partial || len(s.results) < len(s.steps)
	a := &artifacts.Artifact{
		Schema: artifacts.Schema,
		Run: artifacts.Run{
			ID: s.opts.RunID, Started: s.started, Finished: s.finished,
			Host:        artifacts.Host{OS: runtime.GOOS, CPUs: runtime.NumCPU(), Go: runtime.Version()},
			ToolVersion: s.opts.ToolVersion, VCSRevision: s.opts.VCSRevision, PlanSHA256: s.plan.SHA256,
		},
		Group: artifacts.Group{ID: s.group.ID, Title: s.group.Title, Runner: s.group.Runner,
			Config: s.effective(s.group.Raw), ConfigAsWritten: s.effective(s.group.Written)},
		Notes: append([]string{}, s.notes...),
	}
	s.mu.Unlock()
	if cur != nil {
		steps = append(steps, cur.partialResult())
	}
	a.Steps = steps
	a.Run.Partial = partial
	if !a.Run.Finished.IsZero() { // every operation of the group has ended
		a.Notes = append(a.Notes, requestsNote(s.opts.Requests)...)
	}
	if s.remote != nil {
		a.Run.Partial = true
		a.Notes = append(a.Notes, "the live view of a distributed run, not its artifact: benchtui merge gives the exact one")
	}
	a.Shard = s.shardInfo()
	if a.Shard != nil {
		for i := range a.Steps {
			if l := a.Steps[i].IntervalLog; l != nil && l.Len() > 0 {
				a.Steps[i].HLogData = l.String()
			}
		}
	}
	if a.Run.Finished.IsZero() {
		a.Run.Finished = time.Now()
	}
	return a
}

// effective is a group's config with what the run changed of it: the
// duration and warmup --duration set, and the runs --count set.
func (s *Session) effective(cfg map[string]any) map[string]any {
	if cfg == nil {
		return nil
	}
	out := maps.Clone(cfg)
	if len(s.steps) > 0 && s.opts.Duration > 0 && s.group.Duration.D() > 0 {
		out["duration"] = s.steps[0].Duration.String()
		if s.group.Warmup.D() > 0 {
			out["warmup"] = s.steps[0].Warmup.String()
		}
	}
	if n := s.repeat(); n != max(s.group.Repeat, 1) {
		out["repeat"] = n
	}
	return out
}

// requestsNote is the request stream's note for the artifact (how many
// records it wrote and dropped), none without a stream or a Note method.
func requestsNote(sink runners.RequestSink) []string {
	n, ok := sink.(interface{ Note() string })
	if !ok {
		return nil
	}
	if note := n.Note(); note != "" {
		return []string{note}
	}
	return nil
}
