package runners

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benchtui/benchtui/runners/plan"
)

// StepEnv is what a runner sees of the step being run. The engine makes one
// per step with NewStepEnv; a runner's test may make its own to drive a
// Driver directly.
type StepEnv struct {
	Group  *plan.Group
	Index  int // 0-based step index
	Label  string
	Params map[string]float64
	// Vars are the step's values of the group's vars (vars:); runners give
	// them to their template states (tmpl.State.SetStep via StepValues).
	Vars map[string]string
	// Load is the group's load with this step's sweep value applied.
	Load plan.Load
	// Target is the group's watched target, nil without one.
	Target TargetHandle
	// OnEvent and OnWatch are set by the engine: they receive Event and
	// WatchTarget calls. Nil ignores them.
	OnEvent func(kind, note string)
	OnWatch func(name string, t TargetHandle)
	// OnPanic is set by the engine: it receives the panics that Contain
	// stopped. Nil lets them go on.
	OnPanic func(v any, site string)
	// Ops is set by the engine before a Driver's Drive: the context its
	// operations run under, which outlives Drive's by the grace the engine
	// gives in-flight work (a runner that drives the loops of runners/loop itself
	// passes it as their opCtx). Nil for a runner's test: use Drive's.
	Ops context.Context
	// Shard is this process's part of a distributed run (run --shard);
	// the zero Shard runs everything.
	Shard Shard

	gate *Gate
	// recorders grow while a step is prepared (ForLoad), so the engine
	// reads them afresh on every tick; they are never removed.
	recorders atomic.Pointer[[]*Recorder]
	recMu     sync.Mutex // held to add recorders
	// windows are the group's windows (windows:), shared by every
	// recorder of the step; nil without any.
	windows *WindowSet
	// parent is the step's env of which this is one load's view (ForLoad):
	// in-flight counts and units add up there.
	parent *StepEnv
	// tap hands the step's operations to the run's request stream; nil
	// without one (SetRequestSink).
	tap       *requestTap
	inFlight  atomic.Int64
	peakIn    atomic.Int64 // the most in flight since ResetInFlightPeak
	units     atomic.Int64
	peakUnits atomic.Int64
}

// MaxRecorders bounds the recorders of a step (about 280 KB each): workers
// beyond it share them, so a caller that passes its worker count, however
// absurd, cannot allocate a recorder per worker. The engine asks for one
// per worker up to twice the CPUs.
const MaxRecorders = 256

// RecorderCount is how many recorders a step, or a load of it, asks for
// with workers workers: one per worker up to twice the CPUs, so memory
// does not grow with thousands of workers.
func RecorderCount(workers int) int {
	return max(1, min(workers, 2*runtime.GOMAXPROCS(0)))
}

// NewStepEnv returns a step environment with n recorders (at least one, at
// most MaxRecorders) and an open gate.
func NewStepEnv(g *plan.Group, load plan.Load, n int) *StepEnv {
	env := &StepEnv{Group: g, Load: load, Params: map[string]float64{}, gate: &Gate{}}
	if g != nil && len(g.Windows) > 0 {
		env.windows = NewWindowSet(len(g.Windows))
	}
	env.recorders.Store(newRecorders(n, "", env.windows))
	return env
}

// newRecorders returns n recorders (at least one, at most MaxRecorders),
// each for the load named load ("" for a group's only load), recording
// into windows too.
func newRecorders(n int, load string, windows *WindowSet) *[]*Recorder {
	recs := make([]*Recorder, min(max(n, 1), MaxRecorders))
	for i := range recs {
		recs[i] = NewLoadRecorder(load)
		recs[i].windows = windows
	}
	return &recs
}

// Windows are the step's windows (the group's windows:), nil without any.
func (e *StepEnv) Windows() *WindowSet { return e.windows }

// ForLoad returns the view of the step that one of a group's several
// loads (loads:) runs in: g is the load as a group of its own, load and
// params its shape and sweep values in this step. It has n recorders of
// its own (bounded as NewStepEnv's), which record every operation under
// the load's name and are collected with the step's; it shares the
// step's gate, target and hooks (events are noted with the name), and its
// in-flight count and units add to the step's. Call it before the load
// starts (in Prepare).
func (e *StepEnv) ForLoad(name string, g *plan.Group, load plan.Load, params map[string]float64, n int) *StepEnv {
	v := &StepEnv{Group: g, Index: e.Index, Label: e.Label, Params: params, Vars: e.Vars, Load: load, Target: e.Target,
		OnWatch: e.OnWatch, OnPanic: e.OnPanic, Ops: e.Ops, Shard: e.Shard, gate: e.gate, parent: e, windows: e.windows}
	v.OnEvent = func(kind, note string) { e.Event(kind, name+": "+note) }
	recs := newRecorders(n, name, e.windows)
	if e.tap != nil {
		v.tap = e.tap
		for _, r := range *recs {
			r.tap = e.tap
		}
	}
	v.recorders.Store(recs)
	e.recMu.Lock()
	all := append(slices.Clone(e.Recorders()), *recs...)
	e.recorders.Store(&all)
	e.recMu.Unlock()
	return v
}

// StepValues are the step's values of its group's vars, in the order
// templates read them (plan.Group.VarNames).
func (e *StepEnv) StepValues() []string { return e.Group.StepValues(e.Vars) }

// Recorder returns the recorder of worker i (workers share recorders
// beyond the shard count).
func (e *StepEnv) Recorder(i int) *Recorder {
	recs := *e.recorders.Load()
	return recs[i%len(recs)]
}

// Recorders are every recorder of the step, its loads' included, for the
// engine to collect.
func (e *StepEnv) Recorders() []*Recorder { return *e.recorders.Load() }

// Gate is the step's pause gate.
func (e *StepEnv) Gate() *Gate { return e.gate }

// AddInFlight moves the in-flight count of a Driver's operations or streams.
func (e *StepEnv) AddInFlight(delta int) {
	n := e.inFlight.Add(int64(delta))
	for {
		peak := e.peakIn.Load()
		if n <= peak || e.peakIn.CompareAndSwap(peak, n) {
			break
		}
	}
	if e.parent != nil {
		e.parent.AddInFlight(delta)
	}
}

// InFlight is the number of operations or streams in flight.
func (e *StepEnv) InFlight() int { return int(e.inFlight.Load()) }

// InFlightPeak is the most operations or streams in flight at once since
// ResetInFlightPeak (or since the step began).
func (e *StepEnv) InFlightPeak() int64 { return e.peakIn.Load() }

// ResetInFlightPeak starts the peak afresh from what is in flight now:
// the engine calls it when the measured window opens, so a warmup's
// peak is not the step's.
func (e *StepEnv) ResetInFlightPeak() { e.peakIn.Store(e.inFlight.Load()) }

// SetUnits sets the number of subscribers or connections the load holds
// open; the target's fd growth is divided by the step's peak for
// fds_per_unit.
func (e *StepEnv) SetUnits(n int) {
	delta := int64(n) - e.units.Swap(int64(n))
	e.raisePeak(int64(n))
	if p := e.parent; p != nil { // a load's view: the step holds the loads' units
		p.raisePeak(p.units.Add(delta))
	}
}

func (e *StepEnv) raisePeak(n int64) {
	for {
		peak := e.peakUnits.Load()
		if n <= peak || e.peakUnits.CompareAndSwap(peak, n) {
			return
		}
	}
}

// PeakUnits is the most units the load held open at once in this step.
func (e *StepEnv) PeakUnits() int { return int(e.peakUnits.Load()) }

// Contain, deferred in a goroutine that runs a runner's code, stops a
// panic there from ending the process (and, in the console, from leaving
// the terminal in the alternate screen with nothing written): the engine
// fails and stops the step, keeping what it measured, and the goroutine
// returns. Without an OnPanic hook the panic goes on.
func (e *StepEnv) Contain() {
	v := recover()
	if v == nil {
		return
	}
	if e.OnPanic == nil {
		panic(v)
	}
	e.OnPanic(v, PanicSite())
}

// PanicSite names the function that panicked, as file:line, when called
// from a deferred function while panicking.
func PanicSite() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for inPanic := false; ; {
		f, more := frames.Next()
		if inPanic && !strings.HasPrefix(f.Function, "runtime.") {
			return fmt.Sprintf("%s (%s:%d)", f.Function, filepath.Base(f.File), f.Line)
		}
		inPanic = inPanic || f.Function == "runtime.gopanic" || strings.HasPrefix(f.Function, "runtime.panic")
		if !more {
			return "unknown"
		}
	}
}

// Event records an event of the step (kind as in artifacts.Event).
func (e *StepEnv) Event(kind, note string) {
	if e.OnEvent != nil {
		e.OnEvent(kind, note)
	}
}

// WatchTarget makes t (the process tree under its PID) the group's
// watched target from now on, for a runner that starts its own server (an
// embedded Postgres): it is sampled, and its exit is a target_exited event
// that stops the run like a spawned target's. A group with a `target:`
// keeps its own.
func (e *StepEnv) WatchTarget(name string, t TargetHandle) {
	if e.OnWatch != nil {
		e.OnWatch(name, t)
	}
}

// TargetHandle is the watched target as a runner may use it: the shutdown
// runner signals it and waits for its exit.
type TargetHandle interface {
	// PID of the watched process, 0 when it is a cgroup.
	PID() int
	// Signal sends sig to the target (its process group when spawned).
	Signal(sig os.Signal) error
	// Exited is closed when a spawned target has exited.
	Exited() <-chan struct{}
	// ExitStatus describes how it exited ("exit 0", "signal terminated").
	ExitStatus() string
}

// Gate lets workers wait while a step is paused. It is safe for any number
// of goroutines.
type Gate struct {
	mu      sync.Mutex
	resumed chan struct{} // nil while running; closed on resume
	since   time.Time     // when the current pause began
	total   time.Duration // of the pauses that ended
	ended   time.Time     // when the load was told to stop (End)
}

// End records, once, when the step's load was told to stop: an open loop
// counts the arrivals due until then that it never sent as dropped, even
// when it sees the stop late (a busy machine).
func (g *Gate) End(at time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended.IsZero() {
		g.ended = at
	}
}

// Ended is when the load was told to stop (End); zero before.
func (g *Gate) Ended() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ended
}

// Pause closes the gate; it returns false if it was already closed.
func (g *Gate) Pause() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.resumed != nil {
		return false
	}
	g.resumed = make(chan struct{})
	g.since = time.Now()
	return true
}

// Resume opens the gate; it returns false if it was open.
func (g *Gate) Resume() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.resumed == nil {
		return false
	}
	close(g.resumed)
	g.resumed = nil
	g.total += time.Since(g.since)
	return true
}

// Paused reports whether the gate is closed.
func (g *Gate) Paused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.resumed != nil
}

// PausedTotal is the time spent paused so far, the current pause included.
func (g *Gate) PausedTotal() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.resumed != nil {
		return g.total + time.Since(g.since)
	}
	return g.total
}

// Wait blocks while the gate is closed. It returns how long it waited, and
// ctx's error if ctx ended first.
func (g *Gate) Wait(ctx context.Context) (time.Duration, error) {
	g.mu.Lock()
	ch := g.resumed
	g.mu.Unlock()
	if ch == nil {
		return 0, nil
	}
	start := time.Now()
	select {
	case <-ch:
		return time.Since(start), nil
	case <-ctx.Done():
		return time.Since(start), ctx.Err()
	}
}
