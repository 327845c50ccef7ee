package runners

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// startLoad starts the step's load goroutines: the runner's own Drive, or
// the engine's closed or open loop over its workers. The returned group is
// done when every load goroutine has returned.
func (st *stepRun) startLoad(loadCtx, opCtx context.Context) (*sync.WaitGroup, error) {
	var wg sync.WaitGroup
	if d, ok := st.runner.(Driver); ok {
		if k := kinds[st.s.group.Runner]; k.Driven == nil || k.Driven(st.s.group) {
			wg.Go(func() {
				err := d.Drive(loadCtx, st.env)
				if loadCtx.Err() != nil {
					return
				}
				if err != nil {
					st.event(artifacts.EventNote, "runner stopped: "+err.Error())
				}
				st.finishEarly() // a driver that returns has done its work
			})
			return &wg, nil
		}
	}
	load := st.env.Load
	// Each worker holds a connection: the target's fd growth per worker is
	// its fds per connection.
	st.env.SetUnits(load.Workers())
	workers := make([]Worker, load.Workers())
	for i := range workers {
		w, err := st.runner.NewWorker(i, st.env.Recorder(i))
		if err != nil {
			return nil, fmt.Errorf("group %s: starting worker %d: %w", st.s.group.ID, i, err)
		}
		workers[i] = w
	}
	if load.OpenLoop() {
		startOpenLoop(loadCtx, opCtx, st.env, workers, &wg)
	} else {
		startClosedLoop(loadCtx, opCtx, st.env, workers, &wg)
	}
	return &wg, nil
}

// runOp performs one operation of w that was due at due and asked for at
// called, records it, and returns when it ended.
func runOp(ctx context.Context, env *StepEnv, w Worker, rec *Recorder, due, called time.Time) time.Time {
	env.inFlight.Add(1)
	out := w.Do(ctx)
	end := time.Now()
	env.inFlight.Add(-1)
	sent := out.Sent
	if sent.IsZero() {
		sent = called
	}
	rec.Done(due, sent, end, out.Err)
	return end
}

// startClosedLoop runs each worker back to back: an operation is due when
// its worker asks for it, so latency equals service time plus any wait the
// worker itself does. The worker asks again as soon as an operation ends,
// so that end is the next one's due time (one clock read per operation;
// after a pause, a fresh one).
func startClosedLoop(loadCtx, opCtx context.Context, env *StepEnv, workers []Worker, wg *sync.WaitGroup) {
	for i, w := range workers {
		rec := env.Recorder(i)
		wg.Go(func() {
			now := time.Now()
			for {
				waited, err := env.gate.Wait(loadCtx)
				if err != nil || loadCtx.Err() != nil {
					return
				}
				if waited > 0 {
					now = time.Now()
				}
				now = runOp(opCtx, env, w, rec, now, now)
			}
		})
	}
}

// startOpenLoop dispatches arrivals at load.Rate: arrival i is due at
// start + i/rate + paused time, computed from the start and never from the
// previous arrival, so a slow server cannot slow the schedule. An arrival
// that finds every worker busy (max_in_flight reached) is dropped and
// counted. Latency is measured from the due time.
func startOpenLoop(loadCtx, opCtx context.Context, env *StepEnv, workers []Worker, wg *sync.WaitGroup) {
	// A slot is taken when an arrival is dispatched and given back when its
	// operation ends, so jobs never holds more than len(workers) arrivals
	// and a send to it never blocks.
	slots := make(chan struct{}, len(workers))
	jobs := make(chan time.Time, len(workers))
	var workersWG sync.WaitGroup
	for i, w := range workers {
		rec := env.Recorder(i)
		workersWG.Go(func() {
			for due := range jobs {
				runOp(opCtx, env, w, rec, due, time.Now())
				<-slots
			}
		})
	}
	wg.Go(func() {
		dispatch(loadCtx, env, slots, jobs)
		close(jobs)
		workersWG.Wait()
	})
}

func dispatch(ctx context.Context, env *StepEnv, slots chan<- struct{}, jobs chan<- time.Time) {
	rate := env.Load.Rate
	start, pausedBefore := time.Now(), env.gate.PausedTotal()
	dropRec := env.Recorder(0)
	for i := int64(0); ; {
		if _, err := env.gate.Wait(ctx); err != nil || ctx.Err() != nil {
			return
		}
		// Every pause, whenever it began, moves the rest of the schedule.
		shift := env.gate.PausedTotal() - pausedBefore
		now := time.Now()
		for ; ; i++ {
			due := start.Add(shift + time.Duration(float64(i)*float64(time.Second)/rate))
			if due.After(now) {
				if !SleepUntil(ctx, due) {
					return
				}
				break
			}
			select {
			case slots <- struct{}{}:
				jobs <- due
			default:
				dropRec.Drop()
			}
		}
	}
}
