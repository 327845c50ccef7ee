package loads

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
)

// load is one load of the group: its plan entry, its runner, and its view
// of the step being run (set by Prepare).
type load struct {
	spec *plan.NamedLoad
	r    runners.Runner
	env  *runners.StepEnv
}

// Prepare gives each load its view of the step, with its own load shape,
// sweep values and recorders, and prepares its runner in it.
func (r *Runner) Prepare(ctx context.Context, step *runners.StepEnv) error {
	for _, l := range r.loads {
		shape, params := l.spec.InStep(step.Params)
		shards := engine.ShardCount(shape.Workers())
		if _, driver := l.r.(runners.Driver); driver {
			shards = engine.ShardCount(math.MaxInt32) // its goroutines are its own: shard fully
		}
		l.env = step.ForLoad(l.spec.Name, l.spec.Group, shape, params, shards)
		if err := l.r.Prepare(ctx, l.env); err != nil {
			return fmt.Errorf("load %s: %w", l.spec.Name, err)
		}
	}
	return nil
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
	var wg sync.WaitGroup
	for _, l := range r.loads {
		wg.Go(func() {
			defer env.Contain()
			err := l.drive(ctx, ops)
			if err != nil && ctx.Err() == nil {
				env.Event(artifacts.EventNote, fmt.Sprintf("load %s stopped: %v", l.spec.Name, err))
			}
		})
	}
	wg.Wait()
	return nil
}

// drive runs one load: its runner's own Drive, or the engine's closed or
// open loop over workers made for it, whose operations run under ops.
func (l *load) drive(ctx, ops context.Context) error {
	if d, ok := l.r.(runners.Driver); ok {
		return d.Drive(ctx, l.env)
	}
	n := l.env.Load.Workers()
	workers, err := engine.NewWorkers(ctx, l.r, l.env, n)
	if err != nil {
		return err
	}
	l.env.SetUnits(n) // each worker holds a connection
	own, end := context.WithCancel(ctx)
	defer end()
	loop := engine.Loop{Env: l.env, Workers: workers, Count: engine.NewCount(l.spec.Iterations, 0), Stop: end}
	var wg sync.WaitGroup
	if l.env.Load.OpenLoop() {
		engine.OpenLoop(own, ops, loop, &wg)
	} else {
		engine.ClosedLoop(own, ops, loop, &wg)
	}
	wg.Wait()
	return engine.CloseWorkers(workers)
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

// Close closes every load's runner.
func (r *Runner) Close() error {
	var errs []error
	for _, l := range r.loads {
		errs = append(errs, l.r.Close())
	}
	return errors.Join(errs...)
}
