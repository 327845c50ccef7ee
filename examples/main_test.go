package examples

import (
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/grpcload"
	"github.com/benchtui/benchtui/runners/httpload"
	"github.com/benchtui/benchtui/runners/loads"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/quicload"
	"github.com/benchtui/benchtui/runners/redisload"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
	"github.com/benchtui/benchtui/runners/shutdown"
	"github.com/benchtui/benchtui/runners/spawn"
	"github.com/benchtui/benchtui/runners/sse"
	"github.com/benchtui/benchtui/runners/wsload"
)

// exitFail is benchtui's exit code for a check that failed (cmd/benchtui
// main.go): accepted from a run this short.
const exitFail = 1

// kinds are the runner kinds of cmd/benchtui/registry.go, for reading the
// plans' groups and steps; a kind the plans use and this lacks fails
// exampleChunks' parse, so the two cannot drift apart unnoticed.
var kinds = runners.MustRegistry(httpload.Kind(), sse.Kind(), pgload.Kind(), quicload.Kind(),
	redisload.Kind(), grpcload.Kind(), spawn.Kind(), shutdown.Kind(), wsload.Kind(),
	loads.Kind(httpload.Kind(), sse.Kind(), pgload.Kind(), quicload.Kind(), spawn.Kind(), grpcload.Kind(), wsload.Kind()))

// examplesAtOnce is how many runs of the plans (each a subtest) go side
// by side, unless -parallel says otherwise. The steps are timed, so side
// by side they only get fewer operations, which the tests count but do
// not judge; more at once than this only slows each cluster's start and
// the targets' readiness on a 2-core machine.
const examplesAtOnce = 6

// TestMain runs examplesAtOnce runs at once and removes the benchtui
// binary the tests built.
func TestMain(m *testing.M) {
	testbin.DefaultParallel(examplesAtOnce)
	testbin.Exit(m.Run())
}

// benchtuiBinary builds the real binary once per test process (as
// cmd/benchtui's tests do: without -race, so the examples' timed steps and
// the checks that must hold without a fault see a binary of the speed
// users run).
func benchtuiBinary(t *testing.T) string {
	t.Helper()
	return testbin.Build(t, "../cmd/benchtui")
}

func loadArtifacts(t *testing.T, dir string) map[string]*artifacts.Artifact {
	t.Helper()
	return artifactstest.LoadDir(t, dir)
}
