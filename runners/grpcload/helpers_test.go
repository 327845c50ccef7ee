package grpcload

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
	"google.golang.org/grpc"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/demo"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testRegistry knows the grpc kind only.
var testRegistry = runners.MustRegistry(Kind())

// startServer serves the demo's gRPC stand-in (benchtui.demo.Bench, with
// reflection on) on a free loopback port, stopped at cleanup: a real
// grpc-go server counting the calls it answered and the messages each
// way.
func startServer(t testing.TB, opts ...grpc.ServerOption) *demo.GRPCServer {
	t.Helper()
	s, err := demo.ServeGRPC("127.0.0.1:0", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// planDir is a folder holding the stand-in's .proto file under
// protos/benchtui/, where a plan written there finds it.
func planDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "protos", "benchtui"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "protos", "benchtui", "bench.proto"), []byte(demo.GRPCProto), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runIn runs the plan's first group as if read from dir/bench.yaml, so
// the plan's relative paths are dir's.
func runIn(t testing.TB, dir, yaml string, vars map[string]string) *artifacts.Artifact {
	t.Helper()
	p, err := plan.ParsePlan(filepath.Join(dir, "bench.yaml"), []byte(yaml), lookup(vars), testRegistry)
	if err != nil {
		t.Fatalf("parsing the plan: %v", err)
	}
	return runSession(t, p, engine.SessionOptions{})
}

func lookup(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

// runSession runs the plan's first group through a session of its own.
func runSession(t testing.TB, p *plan.Plan, opts engine.SessionOptions) *artifacts.Artifact {
	t.Helper()
	s, err := engine.NewSession(testRegistry, p, p.Groups[0], opts)
	if err != nil {
		t.Fatal(err)
	}
	return runnertest.RunSession(t, context.Background(), s)
}

// noErrors fails t when the step had errors, naming their kinds.
func noErrors(t testing.TB, st *artifacts.Step) {
	t.Helper()
	if st.Errors != 0 {
		t.Fatalf("%d errors %v %v", st.Errors, st.ErrorKinds, st.ErrorSamples)
	}
}
