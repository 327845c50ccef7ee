package engine

import (
	"fmt"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// condition is an action's `when:`, compiled once per step, and what it
// saw: whether it fired, and the figure's last reading (or why there was
// none) for the note of one that never held.
type condition struct {
	fig     artifacts.Figure
	lim     plan.Limit
	fired   bool
	last    float64
	lastErr string
	read    bool
}

// conditions compiles the when: of each action; nil entries for the
// others. A validated plan's conditions compile; one that does not never
// fires, and its note says why.
func conditions(acts []*plan.Action) []*condition {
	out := make([]*condition, len(acts))
	for i, act := range acts {
		if act.When == nil {
			continue
		}
		fig, lim, err := act.When.Condition()
		out[i] = &condition{fig: fig, lim: lim}
		if err != nil {
			out[i].fired, out[i].lastErr = true, err.Error()
		}
	}
	return out
}

// String is the condition as written: "requests >= 2000".
func (c *condition) String() string { return c.fig.Path + " " + c.lim.String() }

// onTick starts, once, each action whose condition the running step's
// snapshot meets: the figures of the tick just collected (every Tick).
func (a *actor) onTick(snap *Snapshot) {
	if a == nil || snap.Phase != PhaseMeasure {
		return
	}
	var live *artifacts.Step
	for i, c := range a.when {
		if c == nil || c.fired {
			continue
		}
		if live == nil {
			live = liveStep(snap)
		}
		v, err := c.fig.Of(live)
		if err != nil {
			c.lastErr = err.Error()
			continue
		}
		c.last, c.read, c.lastErr = v, true, ""
		if c.lim.Holds(v) {
			c.fired = true
			a.st.event(artifacts.EventNote, fmt.Sprintf("action %s: %s held (%s)", a.acts[i].Label(a.st.s.group), c, formatValue(v)))
			a.launch(i, snap.Elapsed)
		}
	}
}

// neverHeld is the note of an action whose condition never held.
func (c *condition) neverHeld(label string) string {
	switch {
	case c.read:
		return fmt.Sprintf("action %s not run: %s never held (last %s)", label, c, formatValue(c.last))
	case c.lastErr != "":
		return fmt.Sprintf("action %s not run: %s never held (%s)", label, c, c.lastErr)
	}
	return fmt.Sprintf("action %s not run: %s never held (no tick read it)", label, c)
}

func formatValue(v float64) string { return fmt.Sprintf("%.6g", v) }

// liveStep is the running step's figures as a snapshot has them, in the
// shape a figure is read from (artifacts.Figure.Of): counts, rates, the
// percentiles a live view keeps, named requests, counters, error kinds,
// probes, and the latest sample of the target and of benchtui itself.
func liveStep(snap *Snapshot) *artifacts.Step {
	t := snap.Total
	s := &artifacts.Step{
		Requests: t.Requests, Errors: t.Errors, Dropped: t.Dropped, ThroughputRPS: t.RPS,
		DurationS: snap.Elapsed.Seconds(), LatencyMS: artifacts.Percentiles{P50: t.P50, P90: t.P90, P99: t.P99, Max: t.Max},
		ErrorKinds: snap.ErrorKinds, Counters: snap.Counters,
		Target: liveProc(snap.Target), Self: liveProc(snap.Self),
	}
	for name, n := range snap.ByName {
		if s.ByName == nil {
			s.ByName = make(map[string]artifacts.NamedStep, len(snap.ByName))
		}
		s.ByName[name] = artifacts.NamedStep{Requests: n.Requests, Errors: n.Errors, Dropped: n.Dropped,
			LatencyMS: artifacts.Percentiles{P50: n.P50, P90: n.P90, P99: n.P99, Max: n.Max}}
	}
	for _, p := range snap.Probes {
		if s.Probes == nil {
			s.Probes = make(map[string]artifacts.ProbeStats, len(snap.Probes))
		}
		s.Probes[p.Name] = p.Stats
	}
	return s
}

// liveProc is a process's latest sample as the end of its ranges.
func liveProc(p *ProcSample) *artifacts.TargetStats {
	if p == nil {
		return nil
	}
	return &artifacts.TargetStats{RSSMB: artifacts.Range{End: p.RSSMB}, FDs: artifacts.Range{End: float64(p.FDs)},
		Threads: artifacts.Range{End: float64(p.Threads)}, CPUCores: p.CPUCores}
}
