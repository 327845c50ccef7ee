//go:build testhooks

package main

import (
	"context"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// testHookKinds add `runner: crash` to a binary built with -tags
// testhooks: a runner with a bug, for the tests of what benchtui does when
// a runner panics (the console stays up, the figures are written).
var testHookKinds = []runners.Kind{{
	Name:     "crash",
	Sections: map[string]func() any{"crash": func() any { return &crashSpec{} }},
	Validate: (*plan.Group).LoopProblems,
	New: func(g *plan.Group, _ *runners.RunEnv) (runners.Runner, error) {
		return &crashRunner{after: plan.Section[crashSpec](g, "crash").After}, nil
	},
}}

// crashSpec is the `crash:` section: each worker panics on its After-th
// operation (an index out of range), having slept 1 ms in each before.
type crashSpec struct {
	After int `yaml:"after,required"`
}

type crashRunner struct{ after int }

type crashWorker struct{ after, n int }

func (r *crashRunner) Prepare(context.Context, *runners.StepEnv) error { return nil }

func (r *crashRunner) NewWorker(int, *runners.Recorder) (runners.Worker, error) {
	return &crashWorker{after: r.after}, nil
}

func (r *crashRunner) Finish(context.Context, *runners.StepEnv, runners.Summary) (runners.Findings, error) {
	return runners.Findings{}, nil
}

func (r *crashRunner) Close() error { return nil }

func (w *crashWorker) Do(ctx context.Context) runners.Outcome {
	w.n++
	if w.n == w.after {
		_ = []int{}[w.n] // the bug
	}
	t := time.NewTimer(time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	return runners.Outcome{}
}

func (w *crashWorker) Close() error { return nil }
