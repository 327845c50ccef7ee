package engine

import (
	"fmt"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// windowRun is where a window's spans lie in the step, in offsets of
// active time: the first start, the last end (to is open while a during
// window's action runs), and how many spans opened.
type windowRun struct {
	from, to time.Duration
	runs     int
	open     bool
	full     bool // MaxWindowSpans reached, noted once
}

// windowsOf are, for each action, the indexes of the windows that follow
// it (by its name).
func windowsOf(g *plan.Group) [][]int {
	out := make([][]int, len(g.Actions))
	for k, w := range g.Windows {
		for i, act := range g.Actions {
			if act != nil && act.Name != "" && act.Name == w.Action() {
				out[i] = append(out[i], k)
			}
		}
	}
	return out
}

// actionStarted opens the during windows of action i at active time t.
func (a *actor) actionStarted(i int, t time.Duration) {
	a.moveWindows(i, t, true)
}

// actionEnded closes the during windows of action i and opens its after
// windows, at active time t.
func (a *actor) actionEnded(i int, t time.Duration) {
	a.moveWindows(i, t, false)
}

func (a *actor) moveWindows(i int, t time.Duration, start bool) {
	set := a.st.env.Windows()
	if set == nil {
		return
	}
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, k := range a.winOf[i] {
		def, run := a.st.s.group.Windows[k], &a.wins[k]
		switch {
		case def.During != "" && !start && run.open:
			set.Close(k, now)
			run.to, run.open = t, false
		case def.During != "" && start:
			a.openWindow(k, now, time.Time{}, t, t, true)
		case def.After != "" && !start:
			a.openWindow(k, now, now.Add(def.For.D()), t, t+def.For.D(), false)
		}
	}
}

// openWindow opens a span of window k (a.mu held), from wall time from to
// to (zero: open), at offsets at to end.
func (a *actor) openWindow(k int, from, to time.Time, at, end time.Duration, open bool) {
	run := &a.wins[k]
	if !a.st.env.Windows().Open(k, from, to) {
		if !run.full {
			run.full = true
			a.st.event(artifacts.EventNote, fmt.Sprintf("window %s: %d spans already, the action's later runs are not measured apart", a.st.s.group.Windows[k].Name, runners.MaxWindowSpans))
		}
		return
	}
	if run.runs == 0 {
		run.from = at
	}
	run.runs++
	run.to, run.open = max(run.to, end), open
}

// windowFigures puts each window's figures into res: its spans'
// offsets (the end at most the step's) and the operations due in them.
func (st *stepRun) windowFigures(res *artifacts.Step) {
	defs, set := st.s.group.Windows, st.env.Windows()
	if len(defs) == 0 || set == nil {
		return
	}
	var runs []windowRun
	if a := st.actions(); a != nil {
		a.mu.Lock()
		runs = append(runs, a.wins...)
		a.mu.Unlock()
	}
	res.Windows = make(map[string]artifacts.WindowStep, len(defs))
	for k, def := range defs {
		w := artifacts.WindowStep{During: def.During, After: def.After}
		if k < len(runs) && runs[k].runs > 0 {
			r := runs[k]
			to := r.to
			if r.open || float64(to)/float64(time.Second) > res.DurationS {
				to = time.Duration(res.DurationS * float64(time.Second))
			}
			figs := set.Window(k).Figures()
			w.FromS, w.ToS, w.Runs = round3(r.from.Seconds()), round3(max(to, r.from).Seconds()), r.runs
			w.Requests, w.Errors = figs.Requests, figs.Errors
			w.LatencyMS = artifacts.PercentilesOf(figs.Latency)
			if h, err := artifacts.EncodeHistogram(figs.Latency); err == nil {
				w.Histogram = h
			}
		}
		res.Windows[def.Name] = w
	}
}
