package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/loop"
)

// makeWorkers asks the runner for the step's workers, before the step's
// start time: a shard is prepared (its connections made) when it says it
// is ready, so its first arrivals are not late. A Driver makes its own.
func (st *stepRun) makeWorkers(ctx context.Context) error {
	if _, ok := st.runner.(runners.Driver); ok {
		return nil
	}
	n := st.env.Load.Workers()
	// Each worker holds a connection: the target's fd growth per worker is
	// its fds per connection.
	st.env.SetUnits(n)
	workers, err := loop.NewWorkers(ctx, st.runner, st.env, n)
	if err != nil {
		return fmt.Errorf("group %s: %w", st.s.group.ID, err)
	}
	st.workers = workers
	return nil
}

// startLoad starts the step's load goroutines: the runner's own Drive, or
// the engine's closed or open loop over the workers makeWorkers made. The
// returned group is done when every load goroutine has returned.
func (st *stepRun) startLoad(loadCtx, opCtx context.Context) *sync.WaitGroup {
	var wg sync.WaitGroup
	if d, ok := st.runner.(runners.Driver); ok {
		st.env.Ops = opCtx
		wg.Go(func() {
			defer st.env.Contain()
			err := d.Drive(loadCtx, st.env)
			if loadCtx.Err() != nil {
				return
			}
			if err != nil {
				st.event(artifacts.EventNote, "runner stopped: "+err.Error())
			}
			st.finishEarly() // a driver that returns has done its work
		})
		return &wg
	}
	ownCtx, endLoad := context.WithCancel(loadCtx)
	l := loop.Loop{Env: st.env, Workers: st.workers, Count: loop.NewCount(st.spec.Iterations, st.spec.PerWorker), Stop: endLoad}
	if st.env.Load.OpenLoop() {
		loop.Open(ownCtx, opCtx, l, &wg)
	} else {
		loop.Closed(ownCtx, opCtx, l, &wg)
	}
	go st.finishWhenDone(loadCtx, &wg, endLoad)
	return &wg
}

// finishWhenDone ends the step when its load returns by itself (its count
// is done, or its data ran out) rather than because the step's time ran
// out: the measured time is then the time the work took.
func (st *stepRun) finishWhenDone(loadCtx context.Context, wg *sync.WaitGroup, endLoad context.CancelFunc) {
	wg.Wait()
	if loadCtx.Err() == nil {
		st.finishEarly()
	}
	endLoad()
}
