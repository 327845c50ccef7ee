//go:build linux

package spawn

import (
	"testing"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// testRegistry knows the spawn kind only.
var testRegistry = runners.MustRegistry(Kind())

// TestThroughEngine checks that a spawn step needs no duration: it ends
// when its Driver is done, with the figures in the artifact.
func TestThroughEngine(t *testing.T) {
	arts := runnertest.RunAll(t, testRegistry, `version: 1
groups:
  - id: cs
    runner: spawn
    spawn: {command: ["/bin/true"], cycles: 25, warmup: 2}
`, nil)
	cs := arts[0].Steps[0]
	if arts[0].Run.Partial || cs.Requests != 25 || cs.Errors != 0 || cs.Extra["first10_p50_ms"] == nil {
		t.Errorf("spawn step: partial %v, %d cycles, %d errors, extra %v", arts[0].Run.Partial, cs.Requests, cs.Errors, cs.Extra)
	}
	assertNoZombies(t)
}
