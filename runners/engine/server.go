package engine

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/logcount"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/watch"
)

// serverState is what the engine reads of the servers themselves during
// a measured phase, beside its probes: the lines of each target's log
// that match its `log:` patterns, and its heap profiles (`pprof:`). Their
// metrics are probes (plan.TargetMetrics) and need nothing here.
type serverState struct {
	mu       sync.Mutex
	logc     map[string]logCount // by the counters' prefix
	counts   map[string]int64    // counters, named as in the step's result
	profiles map[string]string
	fetching sync.WaitGroup
	// cpuCancel cancel the CPU profiles asked for when the measured
	// window opened (startCPUProfile).
	cpuCancel []context.CancelCauseFunc
}

// logCount is one target's running log count, and the log command its
// lines come from (nil without one), whose early end is worth a note.
type logCount struct {
	c      *logcount.Counter
	target string
	source *watch.Process
}

// serverTarget is one of the group's targets whose own figures the step
// reads: its spec, its handle (nil when the step has none), and how its
// figures are named (plan.ServerFigureName: the first's plainly, others'
// as TARGET/NAME).
type serverTarget struct {
	name   string
	index  int
	spec   *plan.TargetSpec
	handle runners.TargetHandle
}

// figure is the name of the target's figure called name.
func (t serverTarget) figure(name string) string { return plan.ServerFigureName(t.index, t.name, name) }

// serverTargets are the group's targets with a `log:` or `pprof:` key.
func (st *stepRun) serverTargets() []serverTarget {
	g := st.s.group
	if st.s.plan == nil {
		return nil
	}
	var out []serverTarget
	for i, name := range g.Targets {
		spec := st.s.plan.Targets[name]
		if spec == nil || (spec.Log == nil && spec.Pprof == nil) {
			continue
		}
		out = append(out, serverTarget{name: name, index: i, spec: spec, handle: st.targetHandle(i, name)})
	}
	return out
}

// targetHandle is the handle of the group's i-th target, named name.
func (st *stepRun) targetHandle(i int, name string) runners.TargetHandle {
	if i == 0 {
		return st.s.opts.Target
	}
	for _, o := range st.s.opts.Others {
		if o.Name == name {
			return o.Handle
		}
	}
	return nil
}

// startServer starts counting log lines, fetches the "start" heap
// profiles and asks for the CPU profiles of the window (in the
// background: the clock does not wait for them) when the measured phase
// begins. A warmup's lines are not counted.
func (st *stepRun) startServer(ctx context.Context) {
	for _, t := range st.serverTargets() {
		if t.spec.Log != nil {
			st.startLogCount(ctx, t)
		}
		if t.spec.Pprof != nil && wants(t.spec.Pprof, "start") {
			st.server.fetching.Go(func() { st.saveProfile(ctx, t, "start") })
		}
		if t.spec.Pprof != nil && t.spec.Pprof.CPU {
			st.startCPUProfile(ctx, t)
		}
	}
}

func (st *stepRun) startLogCount(ctx context.Context, t serverTarget) {
	path, source := st.logPath(t)
	if path == "" {
		st.event(artifacts.EventNote, fmt.Sprintf("log of %s: the target's output is not benchtui's to read (attached): give log.file or log.command", t.name))
		return
	}
	pats := make(map[string]*regexp.Regexp, len(t.spec.Log.Patterns))
	for name, re := range t.spec.Log.Patterns {
		pats[name] = regexp.MustCompile(re) // validated with the plan
	}
	c := logcount.Start(ctx, path, pats)
	st.server.mu.Lock()
	if st.server.logc == nil {
		st.server.logc = map[string]logCount{}
	}
	st.server.logc[t.figure("")] = logCount{c: c, target: t.name, source: source}
	st.server.mu.Unlock()
}

// logPath is the file the target's log lines are counted from: its
// log.file (relative to the plan's folder), else the output of its
// log.command (and that command's process), else the spawned target's
// output log.
func (st *stepRun) logPath(t serverTarget) (string, *watch.Process) {
	if f := t.spec.Log.File; f != "" {
		if !filepath.IsAbs(f) {
			f = filepath.Join(filepath.Dir(st.s.plan.Path), f)
		}
		return f, nil
	}
	f, ok := t.handle.(*Followed)
	if !ok {
		return "", nil
	}
	p := f.Process()
	if src := p.LogSource(); src != nil {
		return src.LogPath(), src
	}
	return p.LogPath(), nil
}

// stopServer ends the log counts when the measured window closes (lines
// written up to then are counted), fetches the "end" heap profiles and
// waits for the CPU profiles: those of a window closed before its planned
// duration (stopped, counted, interrupted) are cancelled, as the server
// would profile on past it; an extended window keeps the profile of the
// planned one.
func (st *stepRun) stopServer(ctx context.Context) {
	st.mu.Lock()
	measured := st.measuring
	cut := st.activeLocked(st.drainAt) < st.spec.Duration
	st.mu.Unlock()
	if cut {
		st.cancelCPUProfiles()
	}
	if !measured {
		return
	}
	st.server.mu.Lock()
	counters := st.server.logc
	st.server.logc = nil
	st.server.mu.Unlock()
	for prefix, lc := range counters {
		st.stopLogCount(prefix, lc)
	}
	for _, t := range st.serverTargets() {
		if t.spec.Pprof != nil && wants(t.spec.Pprof, "end") {
			st.saveProfile(ctx, t, "end")
		}
	}
	st.server.fetching.Wait()
}

// stopLogCount ends one target's log count and keeps its counts as
// log.PREFIXNAME (prefix: "" for the first target, "TARGET/" for others).
// A log command that has ended by then ended early: a note says so (its
// lines stop there), the step goes on.
func (st *stepRun) stopLogCount(prefix string, lc logCount) {
	counts, long, err := lc.c.Stop()
	if lc.source != nil && lc.source.ExitStatus() != "" {
		st.event(artifacts.EventNote, fmt.Sprintf("log of %s: its log command ended early (%s): later lines are not counted", lc.target, lc.source.ExitStatus()))
	}
	if err != nil {
		st.event(artifacts.EventNote, "log: reading: "+err.Error())
	}
	if long > 0 {
		st.event(artifacts.EventNote, fmt.Sprintf("log: %d lines longer than %d bytes were matched on their start", long, logcount.MaxLine))
	}
	st.server.mu.Lock()
	defer st.server.mu.Unlock()
	if st.server.counts == nil {
		st.server.counts = map[string]int64{}
	}
	for name, n := range counts {
		st.server.counts["log."+prefix+name] = n
	}
}

// serverFigures puts the log counts (counters log.NAME and
// log.TARGET/NAME) and the profiles' file names into a step's result.
func (st *stepRun) serverFigures(res *artifacts.Step) {
	st.server.mu.Lock()
	defer st.server.mu.Unlock()
	for name, n := range st.server.counts {
		if res.Counters == nil {
			res.Counters = map[string]int64{}
		}
		res.Counters[name] = n
	}
	if len(st.server.profiles) > 0 {
		res.Profiles = maps.Clone(st.server.profiles)
	}
}

// cancelCPUProfiles cancels the CPU profiles still being fetched.
func (st *stepRun) cancelCPUProfiles() {
	st.server.mu.Lock()
	defer st.server.mu.Unlock()
	for _, cancel := range st.server.cpuCancel {
		cancel(errWindowCut)
	}
}

func wants(p *plan.TargetPprof, moment string) bool {
	for _, m := range p.Moments() {
		if m == moment {
			return true
		}
	}
	return false
}
