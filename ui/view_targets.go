package ui

import (
	"fmt"

	"github.com/benchtui/benchtui/runners/engine"
)

// trail is the RSS and fds of one of a group's further targets over the
// run, taken from the snapshots (the step's series carries only the
// first target's), bounded as benchtui's own fds are.
type trail struct {
	rss, fds []float64
}

// keepOthers adds the snapshot's samples of the group's further targets to
// their trails.
func (gr *group) keepOthers(s engine.Snapshot) {
	if len(s.Others) == 0 {
		return
	}
	if gr.trails == nil {
		gr.trails = map[string]*trail{}
	}
	for _, o := range s.Others {
		if o.ProcSample == nil {
			continue
		}
		tr := gr.trails[o.Name]
		if tr == nil {
			tr = &trail{}
			gr.trails[o.Name] = tr
		}
		tr.rss, tr.fds = appendBounded(tr.rss, o.RSSMB), appendBounded(tr.fds, float64(o.FDs))
	}
}

// cycleTarget shows the next target's charts in the detail view; it
// reports false for a group of fewer than two targets.
func (gr *group) cycleTarget() bool {
	n := len(gr.g.Targets)
	if n < 2 {
		return false
	}
	gr.shown = (gr.shown + 1) % n
	return true
}

// otherTarget is the RSS and fds charts' data for the shown target when it
// is not the group's first: its name, its latest sample (nil before one)
// and its trails; ok is false when the first is shown.
func (gr *group) otherTarget() (who string, cur *engine.ProcSample, rss, fds []float64, ok bool) {
	if gr.shown <= 0 || gr.shown >= len(gr.g.Targets) {
		return "", nil, nil, nil, false
	}
	who = gr.g.Targets[gr.shown]
	for _, o := range gr.snap.Others {
		if o.Name == who {
			cur = o.ProcSample
		}
	}
	if tr := gr.trails[who]; tr != nil {
		rss, fds = tr.rss, tr.fds
	}
	return who, cur, rss, fds, true
}

// targetTag says which of several targets the charts show, and that t
// shows the next: " [2/3 t]"; "" for a group of one target.
func (gr *group) targetTag() string {
	if n := len(gr.g.Targets); n > 1 {
		return fmt.Sprintf(" [%d/%d t]", gr.shown+1, n)
	}
	return ""
}
