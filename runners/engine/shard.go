package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// ShardTolerance is how late past its start time a shard may be ready
// before it gives up (ErrMissedStart): its arrivals would be late and its
// workers would start out of step with the other shards'. It is the
// default; a Shard's Tolerance (run --start-tolerance) replaces it.
const ShardTolerance = 2 * time.Second

// StartTolerance is sh's tolerance: its own, else ShardTolerance.
func StartTolerance(sh runners.Shard) time.Duration {
	if sh.Tolerance > 0 {
		return sh.Tolerance
	}
	return ShardTolerance
}

// ShardStepGap is the pause between two steps of a sharded run: step k
// starts at StartAt plus the planned time of the steps before it (warmup
// and duration) plus k gaps, the same offsets on every shard whatever
// each shard's drain took.
const ShardStepGap = 5 * time.Second

// ErrMissedStart is the error of a shard that was not ready to start a
// step by its start time plus ShardTolerance.
var ErrMissedStart = errors.New("shard missed its start time")

// ShardGroup is g as a shard runs it: no soak auto-extension (every shard
// must keep the same clock), no thresholds (a shard's share of the load
// would fail min_rps: they are judged once, on the merge, which reads
// them from group.config), and only shard 0 watches the targets, does the
// plan's actions and runs the setup (before its start time) and the
// teardown: once for the run. (Verify runs on the merge: the Addons'
// Merged hooks.) The zero Shard returns g.
func ShardGroup(g *plan.Group, sh runners.Shard) *plan.Group {
	if !sh.Active() {
		return g
	}
	c := *g
	c.Soak, c.Thresholds = nil, plan.Thresholds{}
	if sh.Index > 0 {
		c.Target, c.Targets, c.TargetPos, c.Actions, c.Setup, c.Teardown = "", nil, nil, nil, nil, nil
	}
	return &c
}

// shardStep is this shard's part of step spec: its share of the workers,
// of max_in_flight and of the iterations. The zero Shard returns spec.
func shardStep(sh runners.Shard, spec plan.Step) plan.Step {
	if !sh.Active() {
		return spec
	}
	spec.Load = sh.SplitLoad(spec.Load)
	spec.Iterations = sh.Split(spec.Iterations)
	return spec
}

// CheckShardable reports why n shards cannot share g: for each step, a
// count of workers or subscribers below n would leave a shard without
// any; and what the runner kinds (of reg) of g and of each of its loads
// say, at the place in the plan file they name.
func CheckShardable(reg *runners.Registry, g *plan.Group, n int) error {
	errs := kindShardable(reg, g)
	for _, l := range g.Loads {
		if l.Group != nil {
			errs = append(errs, kindShardable(reg, l.Group)...)
		}
	}
	for _, st := range plan.Steps(g, 0) {
		if w := st.Load.Workers(); w > 0 && w < n {
			errs = append(errs, fmt.Errorf("group %s step %s: %d workers (concurrency or max_in_flight) cannot be split over %d shards: want at least one per shard", g.ID, st.Label, w, n))
		}
		if v, ok := st.Params["subscribers"]; ok && int(v) < n {
			errs = append(errs, fmt.Errorf("group %s step %s: %g subscribers cannot be split over %d shards", g.ID, st.Label, v, n))
		}
	}
	return errors.Join(errs...)
}

// kindShardable is what g's runner kind says against sharding g.
func kindShardable(reg *runners.Registry, g *plan.Group) []error {
	if k, ok := reg.Kind(g.Runner); ok && k.Shardable != nil {
		if err := k.Shardable(g); err != nil {
			return []error{err}
		}
	}
	return nil
}

// awaitShardStart sets the step's start time on the shard's common clock
// and sleeps until it; it fails with ErrMissedStart when the step is
// ready too late. Without a shard it returns at once.
func (st *stepRun) awaitShardStart(ctx context.Context) error {
	sh := st.env.Shard
	if !sh.Active() || sh.StartAt.IsZero() {
		return nil
	}
	st.s.mu.Lock()
	at := sh.StartAt.Add(st.s.shardOffset)
	st.s.shardOffset += st.spec.Warmup + st.spec.Duration + ShardStepGap
	st.s.mu.Unlock()
	if late, tolerance := time.Since(at), StartTolerance(sh); late > tolerance {
		return fmt.Errorf("group %s step %s: shard %d/%d ready %s after its start %s (tolerance %s): %w",
			st.s.group.ID, st.spec.Label, sh.Index, sh.Count, late.Round(time.Millisecond), at.UTC().Format(time.RFC3339Nano), tolerance, ErrMissedStart)
	}
	st.env.Shard.StartAt = at
	if f := sh.ReadyFile; f != "" {
		if err := os.WriteFile(f, []byte(at.UTC().Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
			st.event(artifacts.EventNote, "shard ready file: "+err.Error())
		}
	}
	if !runners.SleepUntil(ctx, at) {
		return ctx.Err()
	}
	return nil
}

// shardInfo is the artifact's shard block; nil without a shard.
func (s *Session) shardInfo() *artifacts.ShardInfo {
	sh := s.opts.Shard
	if !sh.Active() || s.remote != nil {
		return nil
	}
	return &artifacts.ShardInfo{
		Index: sh.Index, Count: sh.Count, RunID: sh.RunID, StartAt: sh.StartAt.UTC(),
		PlanSHA256: s.plan.SHA256, ToolVersion: s.opts.ToolVersion,
	}
}

// ThresholdChecks judges step s against th as a run judges its steps, at
// its place in the run; `benchtui merge` judges merged shards with it.
func ThresholdChecks(th plan.Thresholds, s *artifacts.Step, at CheckContext) []artifacts.Check {
	return thresholdChecks(th, s, at)
}
