// Package runnertest runs plans through the engine for tests: parse a plan
// from YAML, run a session until it ends, fail the test on an error. It is
// for tests only (its files are not _test files so that the tests of other
// packages can import it); nothing in benchtui itself uses it.
//
// Binaries that tests run are built by its subpackage testbin, which
// imports nothing of benchtui so that runners/target's own tests can use it.
package runnertest

import (
	"context"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
)

// ParsePlan parses a plan from yaml, taking ${NAME} from vars (nil for
// none); a plan that does not parse or validate fails t.
func ParsePlan(t testing.TB, yaml string, vars map[string]string) *runners.Plan {
	t.Helper()
	p, err := runners.ParsePlan("test.yaml", []byte(yaml), func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	})
	if err != nil {
		t.Fatalf("parsing the plan: %v", err)
	}
	return p
}

// RunSession starts s under ctx, drains its snapshots until it has ended
// and returns its artifact; a session that ended on an error fails t.
func RunSession(t testing.TB, ctx context.Context, s *runners.Session) *artifacts.Artifact {
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
func RunPlan(t testing.TB, yaml string, vars map[string]string) *artifacts.Artifact {
	t.Helper()
	p := ParsePlan(t, yaml, vars)
	s, err := runners.NewSession(p, p.Groups[0], runners.SessionOptions{})
	if err != nil {
		t.Fatalf("group %s: %v", p.Groups[0].ID, err)
	}
	return RunSession(t, context.Background(), s)
}
