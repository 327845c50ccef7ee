package engine

import (
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/watch"
)

// WatchedTarget is one more target a group watches beside its first
// (`target: [api, worker, db]`): its handle (PID, signal, exit) and its
// sampler, under its plan name.
type WatchedTarget struct {
	Name   string
	Handle runners.TargetHandle
	Watch  Watcher
}

// NamedSample is the latest sample of one of a group's targets.
type NamedSample struct {
	Name string
	*ProcSample
}

// otherWatch is what a step keeps of a target after the first: its latest
// sample, its bounded history and its sample before the load.
type otherWatch struct {
	WatchedTarget
	last    *ProcSample
	hist    watch.History
	before  *watch.Sample
	handled <-chan struct{} // the exit channel already reported
}

// initOthers makes the step's record of the group's further targets.
func (w *watchState) initOthers(others []WatchedTarget) {
	w.others = make([]*otherWatch, len(others))
	for i, t := range others {
		w.others[i] = &otherWatch{WatchedTarget: t}
	}
}

// sampleOthersBefore samples the further targets before the load begins.
func (w *watchState) sampleOthersBefore() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, o := range w.others {
		if s, err := o.Watch.Sample(); err == nil {
			o.before = &s
		}
	}
}

// sampleOthers samples the further targets (w.mu held) and, while
// measuring, adds their sum with the first target's sample of this round
// to the sum's history. A round in which one of them could not be read
// adds no sum: a gap is better than a sum that drops by a whole process.
func (w *watchState) sampleOthers(at time.Duration, measuring bool) {
	if len(w.others) == 0 {
		return
	}
	sum, whole := watch.Sample{}, true
	if first, ok := w.targetHist.Last(); ok && first.T == at && w.target != nil {
		addToSum(&sum, first.Sample)
	} else {
		whole = false
	}
	for _, o := range w.others {
		o.last = takeSample(o.Watch, &o.hist, at, measuring)
		s, ok := o.hist.Last()
		if o.last == nil || !ok || s.T != at {
			whole = false
			continue
		}
		addToSum(&sum, s.Sample)
	}
	if measuring && whole {
		w.sumHist.Add(watch.TimedSample{T: at, Sample: sum})
	}
}

// addToSum adds s to sum field by field; an unreadable fd count (-1)
// makes the sum's unreadable too. The working set, PSS and USS are summed
// only when every target has them (all cgroups, all trees): a sum that
// left some targets out is no sum, so one without them makes the sum's
// absent (-1).
func addToSum(sum *watch.Sample, s watch.Sample) {
	sum.RSSBytes += s.RSSBytes
	sum.Threads += s.Threads
	sum.CPUSeconds += s.CPUSeconds
	sum.CPUCores += s.CPUCores
	if s.FDs < 0 || sum.FDs < 0 {
		sum.FDs = -1
	} else {
		sum.FDs += s.FDs
	}
	addIfAll(&sum.WorkingSetBytes, s.WorkingSetBytes)
	addIfAll(&sum.PSSBytes, s.PSSBytes)
	addIfAll(&sum.USSBytes, s.USSBytes)
}

// addIfAll adds v to *sum while every value added has been there (> 0);
// after one that was not, *sum stays -1.
func addIfAll(sum *int64, v int64) {
	if v <= 0 || *sum < 0 {
		*sum = -1
		return
	}
	*sum += v
}

// othersSnapshot is the further targets' latest samples (w.mu held).
func (w *watchState) othersSnapshot() []NamedSample {
	if len(w.others) == 0 {
		return nil
	}
	out := make([]NamedSample, len(w.others))
	for i, o := range w.others {
		out[i] = NamedSample{Name: o.Name}
		if o.last != nil {
			c := *o.last
			out[i].ProcSample = &c
		}
	}
	return out
}

// histOf is the history of the named target (w.mu held): the first's for
// "" or its name, nil for a name the group does not watch.
func (w *watchState) histOf(name, first string) *watch.History {
	if name == "" || name == first {
		return &w.targetHist
	}
	for _, o := range w.others {
		if o.Name == name {
			return &o.hist
		}
	}
	return nil
}

// summarizeTargets adds each target's figures by name and their sum to
// res (w.mu held); res.Target is the first's, already summarised.
func (w *watchState) summarizeTargets(res *artifacts.Step, first string, window time.Duration, units int) {
	if first == "" {
		return
	}
	res.Targets = map[string]*artifacts.TargetStats{}
	if res.Target != nil {
		c := *res.Target
		res.Targets[first] = &c
	}
	for _, o := range w.others {
		t := analyzed(&o.hist, window, units)
		if t != nil && o.before != nil {
			watch.StartBefore(t, *o.before, units)
		}
		if t != nil {
			res.Targets[o.Name] = t
		}
	}
	if len(res.Targets) == 0 {
		res.Targets = nil
	}
	if len(w.others) > 0 {
		res.TargetsSum = analyzed(&w.sumHist, window, units)
	}
}

// othersExited reports the exit of any further target not reported yet
// and, unless the group lets the step go on, stops the step; it reports
// whether it stopped.
func (st *stepRun) othersExited() bool {
	w := &st.watched
	w.mu.Lock()
	var gone []*otherWatch
	var exited []runners.TargetHandle
	for _, o := range w.others {
		p := currentProcess(o.Handle) // the process that exits, not one a restart starts meanwhile
		ch := p.Exited()
		if ch == o.handled {
			continue
		}
		select {
		case <-ch:
			o.handled = ch
			gone, exited = append(gone, o), append(exited, p)
		default:
		}
	}
	w.mu.Unlock()
	for i, o := range gone {
		if st.onTargetExitOf(exited[i], o.Name) {
			return true
		}
	}
	return false
}

// soakWho names the soak policy's target in its event when the group
// watches several.
func soakWho(name string, others int) string {
	if others == 0 || name == "" {
		return ""
	}
	return name + " "
}
