package loads

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/loop"
	"github.com/benchtui/benchtui/runners/plan"
)

// load is one load of the group: its plan entry, its kind and runner,
// its view of the step being run and the workers of its loop
// (set by Prepare; none for a Driver).
type load struct {
	spec    *plan.NamedLoad
	kind    runners.Kind
	r       runners.Runner
	env     *runners.StepEnv
	workers []runners.Worker
}

// Prepare refuses a step whose loads together pass the limits of one load
// (the plan's validation refuses it first), then gives each load its view
// of the step, with its own load shape, sweep values and recorders,
// prepares its runner in it and makes its workers, before the step's
// clock starts, as the engine does for a group's only load.
func (r *Runner) Prepare(ctx context.Context, step *runners.StepEnv) error {
	shapes := make([]shape, len(r.loads))
	for i, l := range r.loads {
		load, params := l.spec.InStep(step.Params)
		load = step.Shard.SplitLoad(load) // a shard runs its part of every load
		shapes[i] = shape{i: i, spec: l.spec, kind: l.kind, load: load, params: params}
	}
	if errs := sumsProblems(r.group, shapes, ""); len(errs) > 0 {
		return fmt.Errorf("step %s: %w", step.Label, errors.Join(errs...))
	}
	for i, l := range r.loads {
		if err := l.prepare(ctx, step, shapes[i]); err != nil {
			return fmt.Errorf("load %s: %w", l.spec.Name, err)
		}
	}
	return nil
}

// prepare makes the load's view of the step, prepares its runner and makes
// its workers (closing any a step that never ran left).
func (l *load) prepare(ctx context.Context, step *runners.StepEnv, s shape) error {
	shards := runners.RecorderCount(s.load.Workers())
	_, driver := l.r.(runners.Driver)
	if driver {
		shards = runners.RecorderCount(math.MaxInt32) // its goroutines are its own: shard fully
	}
	l.env = step.ForLoad(l.spec.Name, l.spec.Group, s.load, s.params, shards)
	if err := l.r.Prepare(ctx, l.env); err != nil {
		return err
	}
	if err := l.closeWorkers(); err != nil || driver {
		return err
	}
	workers, err := loop.NewWorkers(ctx, l.r, l.env, l.env.Load.Workers())
	l.workers = workers
	return err
}

// closeWorkers closes the load's workers, once their loop has returned.
func (l *load) closeWorkers() error {
	err := loop.CloseWorkers(l.workers)
	l.workers = nil
	return err
}

// NewWorker is never called: the runner is a Driver.
func (r *Runner) NewWorker(int, *runners.Recorder) (runners.Worker, error) {
	return nil, errors.New("loads: a group's loads are driven by its runner, not by the engine's workers")
}

// Drive runs every load until ctx ends, or until each has ended by itself
// (its iterations done); a load that stops early with an error is noted,
// and the others run on.
func (r *Runner) Drive(ctx context.Context, env *runners.StepEnv) error {
	ops := env.Ops
	if ops == nil {
		ops = ctx
	}
	start := time.Now() // the loads' common clock, however late each goroutine runs
	var wg sync.WaitGroup
	for _, l := range r.loads {
		wg.Go(func() {
			defer env.Contain()
			err := l.drive(ctx, ops, start)
			if err != nil && ctx.Err() == nil {
				env.Event(artifacts.EventNote, fmt.Sprintf("load %s stopped: %v", l.spec.Name, err))
			}
		})
	}
	wg.Wait()
	return nil
}

// drive runs one load: its runner's own Drive, or the closed or open
// loop (runners/loop) over the workers Prepare made, whose operations run under ops;
// an open loop's arrival 0 is due at start.
func (l *load) drive(ctx, ops context.Context, start time.Time) error {
	if d, ok := l.r.(runners.Driver); ok {
		// The engine sets the step's Ops after Prepare made the load's
		// env: without it, a driver's operations in flight at the end
		// would be cut (canceled) rather than given the step's grace.
		l.env.Ops = ops
		return d.Drive(ctx, l.env)
	}
	l.env.SetUnits(len(l.workers)) // each worker holds a connection
	own, end := context.WithCancel(ctx)
	defer end()
	lp := loop.Loop{Env: l.env, Workers: l.workers, Count: loop.NewCount(l.spec.Iterations, 0), Stop: end, Start: start}
	var wg sync.WaitGroup
	if l.env.Load.OpenLoop() {
		loop.Open(own, ops, lp, &wg)
	} else {
		loop.Closed(own, ops, lp, &wg)
	}
	wg.Wait()
	return l.closeWorkers()
}

// Finish runs each load's Finish with the step's summary. Their findings
// are the step's: checks and extra figures named after the load, counters
// of one name added up.
func (r *Runner) Finish(ctx context.Context, step *runners.StepEnv, sum runners.Summary) (runners.Findings, error) {
	var all runners.Findings
	var errs []error
	for _, l := range r.loads {
		if l.env == nil {
			continue // not prepared: the step failed before
		}
		f, err := l.r.Finish(ctx, l.env, sum)
		if err != nil {
			errs = append(errs, fmt.Errorf("load %s: %w", l.spec.Name, err))
		}
		all = merge(all, l.spec.Name, f)
	}
	return all, errors.Join(errs...)
}

// merge adds the findings f of load name to all.
func merge(all runners.Findings, name string, f runners.Findings) runners.Findings {
	for _, c := range f.Checks {
		c.Name = name + ": " + c.Name
		all.Checks = append(all.Checks, c)
	}
	for k, v := range f.Counters {
		if all.Counters == nil {
			all.Counters = map[string]int64{}
		}
		all.Counters[k] += v
	}
	for k, v := range f.Extra {
		if all.Extra == nil {
			all.Extra = map[string]any{}
		}
		all.Extra[name+"."+k] = v
	}
	return all
}

// Close closes every load's runner, and the workers of a step that was
// prepared but never driven (its setup failed).
func (r *Runner) Close() error {
	var errs []error
	for _, l := range r.loads {
		errs = append(errs, l.closeWorkers(), l.r.Close())
	}
	return errors.Join(errs...)
}
