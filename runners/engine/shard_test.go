package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// TestShardStepSplitsTheLoad: workers, max_in_flight and iterations are
// split, and a count below the shards is refused naming the group.
func TestShardStepSplitsTheLoad(t *testing.T) {
	spec := plan.Step{Label: "x", Load: plan.Load{Concurrency: 10, MaxInFlight: 7}, Iterations: 100}
	var conc, inflight int
	var iters int64
	for i := range 3 {
		s := shardStep(runners.Shard{Index: i, Count: 3}, spec)
		conc, inflight, iters = conc+s.Load.Concurrency, inflight+s.Load.MaxInFlight, iters+s.Iterations
	}
	if conc != 10 || inflight != 7 || iters != 100 {
		t.Fatalf("shares add to %d workers, %d in flight, %d iterations", conc, inflight, iters)
	}
	g := &plan.Group{ID: "G", Load: plan.Load{Concurrency: 2}, Duration: plan.Duration{Duration: time.Second}}
	if err := CheckShardable(testRegistry, g, 3); err == nil {
		t.Fatal("2 workers over 3 shards: no error")
	}
	if err := CheckShardable(testRegistry, g, 2); err != nil {
		t.Fatal(err)
	}
}

// TestShardGroupLeavesOutWhatRunsOnce: soak and thresholds are off on
// every shard; targets, actions, setup and teardown stay on shard 0.
func TestShardGroupLeavesOutWhatRunsOnce(t *testing.T) {
	ms := 50.0
	g := &plan.Group{ID: "G", Target: "api", Targets: []string{"api"}, Setup: []*plan.Task{{}}, Teardown: []*plan.Task{{}},
		Soak: &plan.Soak{}, Thresholds: plan.Thresholds{MinRPS: &ms}, Actions: []*plan.Action{{}}}
	if ShardGroup(g, runners.Shard{}) != g {
		t.Fatal("the zero Shard must run the group as written")
	}
	s0, s1 := ShardGroup(g, runners.Shard{Index: 0, Count: 2}), ShardGroup(g, runners.Shard{Index: 1, Count: 2})
	if len(s0.Setup) != 1 || len(s0.Teardown) != 1 || s0.Soak != nil || s0.Thresholds.MinRPS != nil || s0.Target != "api" || len(s0.Actions) != 1 {
		t.Fatalf("shard 0: %+v", s0)
	}
	if s1.Target != "" || s1.Targets != nil || s1.Actions != nil || s1.Setup != nil || s1.Teardown != nil {
		t.Fatalf("shard 1 watches %q, acts %v, sets up %v, tears down %v", s1.Target, s1.Actions, s1.Setup, s1.Teardown)
	}
	if g.Setup == nil || g.Thresholds.MinRPS == nil {
		t.Fatal("ShardGroup changed the plan's group")
	}
}

// TestShardIsPreparedBeforeItsStart: a shard makes its workers (slow
// connections here: 100 ms each) before its start time and only then
// writes its ready file, so its first arrivals are on time.
func TestShardIsPreparedBeforeItsStart(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	synctest.Test(t, func(t *testing.T) {
		p, g := sleepPlan(t, "{rate: 100, max_in_flight: 10}", "")
		spec := g.Sections["sleep"].(*sleepSpec)
		spec.Delay, spec.Make = plan.Duration{Duration: time.Millisecond}, plan.Duration{Duration: 100 * time.Millisecond}
		var early int
		spec.made = func() {
			if _, err := os.Stat(ready); err == nil {
				early++
			}
		}
		start := time.Now().Add(1500 * time.Millisecond)
		sh := runners.Shard{Index: 0, Count: 1, StartAt: start, RunID: "r", ReadyFile: ready}
		s, err := NewSession(testRegistry, p, g, SessionOptions{Shard: sh})
		if err != nil {
			t.Fatal(err)
		}
		s.Start(context.Background())
		for range s.Snapshots() {
		}
		<-s.Done()
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		st := s.Result().Steps[0]
		if early > 0 {
			t.Errorf("%d of 10 workers made after the ready file was written", early)
		}
		if st.Late != 0 || st.Dropped != 0 || st.Requests < 99 {
			t.Errorf("%d late, %d dropped of %d sent: want every arrival on time", st.Late, st.Dropped, st.Requests)
		}
	})
}
