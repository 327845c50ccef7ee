//go:build unix

package shutdown

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// helperBin is spawn's test server (it drains or exits at once on
// SIGTERM), built once by TestMain.
var helperBin string

func TestMain(m *testing.M) {
	helperBin = testbin.MustBuild("../spawn/testdata/helper")
	goleak.VerifyTestMain(m, goleak.Cleanup(testbin.Exit))
}

// testRegistry knows the shutdown kind only.
var testRegistry = runners.MustRegistry(Kind())

func freeAddr(t *testing.T) string { return testbin.FreeAddr(t) }

func assertNoZombies(t *testing.T) { testbin.AssertNoZombies(t) }
