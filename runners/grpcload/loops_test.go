package grpcload

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"google.golang.org/grpc"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestSweepNamedChecksPerWorker: a sweep of concurrency over one
// connection per worker, a mix of named calls and checks on their
// figures: each step's named requests are what the server answered in
// it, and the checks pass.
func TestSweepNamedChecksPerWorker(t *testing.T) {
	s := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: sweep
    runner: grpc
    grpc:
      target: ${ADDR}
      connections: per_worker
      calls:
        - {name: echo, method: benchtui.demo.Bench/Echo, message: '{"name": "s"}', weight: 3}
        - {name: ticks, method: benchtui.demo.Bench/Ticks, message: '{"count": 2}'}
    sweep: {concurrency: [1, 4]}
    iterations: 400
    max_duration: 60s
    thresholds:
      error_rate: 0
      checks:
        - {figure: by_name.echo.requests, ">": 200}
        - {figure: counters.messages_received, ">": 0}
`, map[string]string{"ADDR": s.Addr().String()})
	var echo, ticks int64
	for _, st := range a.Steps {
		noErrors(t, &st)
		for _, c := range st.Checks {
			if !c.OK {
				t.Errorf("step %s: check %s failed: %+v", st.Label, c.Name, c)
			}
		}
		echo, ticks = echo+st.ByName["echo"].Requests, ticks+st.ByName["ticks"].Requests
		if st.Counters[CounterReceived] != 2*st.ByName["ticks"].Requests {
			t.Errorf("step %s: received %d, want 2 per ticks call", st.Label, st.Counters[CounterReceived])
		}
	}
	if len(a.Steps) != 2 || echo+ticks != 800 || echo != s.Calls("Echo") || ticks != s.Calls("Ticks") {
		t.Fatalf("%d steps, echo %d, ticks %d; the server answered %d and %d", len(a.Steps), echo, ticks, s.Calls("Echo"), s.Calls("Ticks"))
	}
}

// TestShardsSplitTheLoad: two shards of a counted run each make their
// part of the calls, numbered apart ({{seq}} striped): together they make
// every call once, as the server counts them.
func TestShardsSplitTheLoad(t *testing.T) {
	var (
		mu    sync.Mutex
		names = map[string]int{}
	)
	record := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		reply, err := h(ctx, req)
		if err == nil {
			mu.Lock()
			names[fmt.Sprint(req)]++
			mu.Unlock()
		}
		return reply, err
	}
	s := startServer(t, grpc.UnaryInterceptor(record))
	p := runnertest.ParsePlan(t, testRegistry, `
version: 1
groups:
  - id: shards
    runner: grpc
    grpc:
      target: ${ADDR}
      method: benchtui.demo.Bench/Echo
      message: '{"name": "n{{seq}}"}'
    load: {concurrency: 4}
    iterations: 600
    max_duration: 60s
`, map[string]string{"ADDR": s.Addr().String()})
	var total int64
	for i := range 2 {
		a := runSession(t, p, engine.SessionOptions{Shard: runners.Shard{Index: i, Count: 2}})
		noErrors(t, &a.Steps[0])
		total += a.Steps[0].Requests
	}
	mu.Lock()
	defer mu.Unlock()
	if total != 600 || s.Calls("Echo") != 600 || len(names) != 600 {
		t.Fatalf("the shards made %d calls, the server answered %d, %d distinct names", total, s.Calls("Echo"), len(names))
	}
}

// TestLiveFiguresAndWatchedTarget: the session's live snapshots show the
// calls and stream counters as they come, and the group's target (this
// process, which serves the calls) is watched.
func TestLiveFiguresAndWatchedTarget(t *testing.T) {
	s := startServer(t)
	p := runnertest.ParsePlan(t, testRegistry, `
version: 1
targets:
  self: {pid: "${PID}", sample: 100ms}
groups:
  - id: live
    runner: grpc
    target: self
    grpc:
      target: ${ADDR}
      method: benchtui.demo.Bench/Ticks
      message: '{"count": 3}'
    load: {rate: 100, max_in_flight: 8}
    duration: 1s
`, map[string]string{"ADDR": s.Addr().String(), "PID": strconv.Itoa(os.Getpid())})
	run := engine.NewRun(p, testRegistry, t.TempDir(), "test")
	defer run.Close()
	sess, err := run.Session(context.Background(), p.Groups[0])
	if err != nil {
		t.Fatal(err)
	}
	sess.Start(context.Background())
	var live, watched int
	for snap := range sess.Snapshots() {
		if snap.Total.Requests > 0 && snap.Counters[CounterReceived] > 0 {
			live++
		}
		if snap.Target != nil && snap.Target.RSSMB > 0 {
			watched++
		}
	}
	<-sess.Done()
	if err := sess.Err(); err != nil {
		t.Fatal(err)
	}
	st := sess.Result().Steps[0]
	noErrors(t, &st)
	if live == 0 || watched == 0 || st.Target == nil {
		t.Fatalf("%d live snapshots with calls, %d with the target's figures; step target %+v", live, watched, st.Target)
	}
	if st.Requests != s.Calls("Ticks") || st.Counters[CounterReceived] != 3*st.Requests {
		t.Errorf("requests %d, received %d; the server answered %d", st.Requests, st.Counters[CounterReceived], s.Calls("Ticks"))
	}
}
