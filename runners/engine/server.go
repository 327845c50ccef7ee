package engine

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/logcount"
	"github.com/benchtui/benchtui/runners/plan"
)

// serverState is what the engine reads of the server itself during a
// measured phase, beside its probes: the lines of its log that match the
// target's `log:` patterns, and its heap profiles (`pprof:`). Its metrics
// are probes (plan.TargetMetrics) and need nothing here.
type serverState struct {
	mu       sync.Mutex
	logc     *logcount.Counter
	counts   map[string]int64
	profiles map[string]string
	fetching sync.WaitGroup
}

// serverTarget is the plan target the group watches, nil without one.
func (st *stepRun) serverTarget() *plan.TargetSpec {
	g := st.s.group
	if g.Target == "" || st.s.plan == nil {
		return nil
	}
	return st.s.plan.Targets[g.Target]
}

// startServer starts counting log lines and fetches the "start" heap
// profile (in the background: the clock does not wait for it) when the
// measured phase begins. A warmup's lines are not counted.
func (st *stepRun) startServer(ctx context.Context) {
	t := st.serverTarget()
	if t == nil {
		return
	}
	if t.Log != nil {
		st.startLogCount(ctx, t)
	}
	if t.Pprof != nil && wants(t.Pprof, "start") {
		st.server.fetching.Go(func() { st.saveProfile(ctx, t.Pprof, "start") })
	}
}

func (st *stepRun) startLogCount(ctx context.Context, t *plan.TargetSpec) {
	path := st.logPath(t)
	if path == "" {
		st.event(artifacts.EventNote, "log: the target's output is not benchtui's to read (attached): give log.file")
		return
	}
	pats := make(map[string]*regexp.Regexp, len(t.Log.Patterns))
	for name, re := range t.Log.Patterns {
		pats[name] = regexp.MustCompile(re) // validated with the plan
	}
	c := logcount.Start(ctx, path, pats)
	st.server.mu.Lock()
	st.server.logc = c
	st.server.mu.Unlock()
}

// logPath is the file the target's log lines are counted from: its
// log.file (relative to the plan's folder), else the spawned target's
// output log.
func (st *stepRun) logPath(t *plan.TargetSpec) string {
	if f := t.Log.File; f != "" {
		if !filepath.IsAbs(f) {
			f = filepath.Join(filepath.Dir(st.s.plan.Path), f)
		}
		return f
	}
	if f, ok := st.s.opts.Target.(*Followed); ok {
		return f.Process().LogPath()
	}
	return ""
}

// stopServer ends the log count when the measured window closes (lines
// written up to then are counted) and fetches the "end" heap profile.
func (st *stepRun) stopServer(ctx context.Context) {
	t := st.serverTarget()
	st.mu.Lock()
	measured := st.measuring
	st.mu.Unlock()
	if t == nil || !measured {
		return
	}
	st.server.mu.Lock()
	c := st.server.logc
	st.server.logc = nil
	st.server.mu.Unlock()
	if c != nil {
		counts, long, err := c.Stop()
		if err != nil {
			st.event(artifacts.EventNote, "log: reading: "+err.Error())
		}
		if long > 0 {
			st.event(artifacts.EventNote, fmt.Sprintf("log: %d lines longer than %d bytes were matched on their start", long, logcount.MaxLine))
		}
		st.server.mu.Lock()
		st.server.counts = counts
		st.server.mu.Unlock()
	}
	if t.Pprof != nil && wants(t.Pprof, "end") {
		st.saveProfile(ctx, t.Pprof, "end")
	}
	st.server.fetching.Wait()
}

// serverFigures puts the log counts (counters log.NAME) and the profiles'
// file names into a step's result.
func (st *stepRun) serverFigures(res *artifacts.Step) {
	st.server.mu.Lock()
	defer st.server.mu.Unlock()
	for name, n := range st.server.counts {
		if res.Counters == nil {
			res.Counters = map[string]int64{}
		}
		res.Counters["log."+name] = n
	}
	if len(st.server.profiles) > 0 {
		res.Profiles = maps.Clone(st.server.profiles)
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
