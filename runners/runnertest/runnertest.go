// Package runnertest runs plans through the engine for tests: parse a plan
// from YAML, run a session until it ends, fail the test on an error. It is
// for tests only (its files are not _test files so that the tests of other
// packages can import it); nothing in benchtui itself uses it.
//
// Binaries that tests run are built by its subpackage testbin, which
// imports nothing of benchtui so that runners/watch's own tests can use it.
package runnertest

import (
	"context"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
)

// ParsePlan parses a plan from yaml with the kinds of reg, taking ${NAME}
// from vars (nil for none); a plan that does not parse or validate fails t.
func ParsePlan(t testing.TB, reg *runners.Registry, yaml string, vars map[string]string) *plan.Plan {
	t.Helper()
	p, err := plan.ParsePlan("test.yaml", []byte(yaml), func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}, reg)
	if err != nil {
		t.Fatalf("parsing the plan: %v", err)
	}
	return p
}

// RunSession starts s under ctx, drains its snapshots until it has ended
// and returns its artifact; a session that ended on an error fails t.
func RunSession(t testing.TB, ctx context.Context, s *engine.Session) *artifacts.Artifact {
	t.Helper()
	s.Start(ctx)
	for range s.Snapshots() {
	}
	<-s.Done()
	if err := s.Err(); err != nil {
		t.Fatalf("group %s: %v", s.Group().ID, err)
	}
	return s.Result()
}

// RunPlan parses a plan and runs its first group through a session of its
// own, as RunSession does. There is no runners.Run: the group can have no
// target, and nothing is registered for a run's cleanup.
func RunPlan(t testing.TB, reg *runners.Registry, yaml string, vars map[string]string) *artifacts.Artifact {
	t.Helper()
	p := ParsePlan(t, reg, yaml, vars)
	s, err := engine.NewSession(reg, p, p.Groups[0], engine.SessionOptions{})
	if err != nil {
		t.Fatalf("group %s: %v", p.Groups[0].ID, err)
	}
	return RunSession(t, context.Background(), s)
}

// RunAll runs every group of a plan through one engine.Run (its targets
// started once, as `benchtui run` does) and returns their artifacts.
func RunAll(t testing.TB, reg *runners.Registry, yaml string, vars map[string]string) []*artifacts.Artifact {
	t.Helper()
	p := ParsePlan(t, reg, yaml, vars)
	run := engine.NewRun(p, reg, t.TempDir(), "test")
	defer run.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []*artifacts.Artifact
	for _, g := range p.Groups {
		sess, err := run.Session(ctx, g)
		if err != nil {
			t.Fatalf("group %s: %v", g.ID, err)
		}
		out = append(out, RunSession(t, ctx, sess))
	}
	return out
}

// StepDriver is a runner that drives its own step.
type StepDriver interface {
	runners.Runner
	runners.Driver
}

// DriveStep runs r through Prepare, Drive and Finish on env, as the engine
// runs a step, and returns what Finish found as a step's figures.
func DriveStep(t testing.TB, ctx context.Context, r StepDriver, env *runners.StepEnv) *artifacts.Step {
	t.Helper()
	if err := r.Prepare(ctx, env); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	if err := r.Drive(ctx, env); err != nil {
		t.Fatalf("Drive: %v", err)
	}
	found, err := r.Finish(ctx, env, runners.Summary{})
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	return &artifacts.Step{Checks: found.Checks, Counters: found.Counters, Extra: found.Extra}
}
