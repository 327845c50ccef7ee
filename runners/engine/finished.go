package engine

import (
	"sync"

	"github.com/benchtui/benchtui/artifacts"
)

// Finished holds the steps each group of a run has finished, for the
// threshold checks of later groups whose limits are its figures. The
// zero Finished is empty; a nil one holds nothing. It is safe from any
// goroutine.
type Finished struct {
	mu    sync.Mutex
	steps map[string][]artifacts.Step
}

// begin forgets group's steps: it is being run (again).
func (f *Finished) begin(group string) {
	f.update(group, func([]artifacts.Step) []artifacts.Step { return []artifacts.Step{} })
}

// add records a step group finished.
func (f *Finished) add(group string, s artifacts.Step) {
	f.update(group, func(steps []artifacts.Step) []artifacts.Step { return append(steps, s) })
}

// update replaces group's steps with what change makes of them.
func (f *Finished) update(group string, change func([]artifacts.Step) []artifacts.Step) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.steps == nil {
		f.steps = map[string][]artifacts.Step{}
	}
	f.steps[group] = change(f.steps[group])
}

// Steps are the steps group finished in this run, in order; false when
// it has not been run.
func (f *Finished) Steps(group string) ([]artifacts.Step, bool) {
	if f == nil {
		return nil, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	steps, ok := f.steps[group]
	return append([]artifacts.Step(nil), steps...), ok
}
