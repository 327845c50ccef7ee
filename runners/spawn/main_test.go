//go:build linux

package spawn

import (
	"bytes"
	"os"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// helperBin is the test server of testdata/helper, built once by TestMain.
var helperBin string

func TestMain(m *testing.M) {
	helperBin = testbin.MustBuild("./testdata/helper")
	goleak.VerifyTestMain(m, goleak.Cleanup(testbin.Exit))
}

func freeAddr(t *testing.T) string { return testbin.FreeAddr(t) }

func assertNoZombies(t *testing.T) { testbin.AssertNoZombies(t) }

// assertGone waits up to a second until no live process has marker in
// its command line.
func assertGone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		live := liveWith(t, marker)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes with %q still running: %v", marker, live)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func liveWith(t *testing.T, marker string) []int {
	var live []int
	for _, p := range testbin.Procs(t) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/cmdline")
		if err == nil && p.State != 'Z' && bytes.Contains(b, []byte(marker)) {
			live = append(live, p.PID)
		}
	}
	return live
}
