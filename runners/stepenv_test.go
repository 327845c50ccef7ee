package runners

import (
	"testing"

	"github.com/benchtui/benchtui/runners/plan"
)

// TestStepEnvRecordersBounded: a step env asked for a recorder per worker
// of an absurd load makes at most MaxRecorders, and every worker index
// still has one.
func TestStepEnvRecordersBounded(t *testing.T) {
	for _, n := range []int{-1, 0, 1, 3, MaxRecorders, 1_000_000_000} {
		env := NewStepEnv(&plan.Group{ID: "g"}, plan.Load{Concurrency: n}, n)
		want := min(max(n, 1), MaxRecorders)
		if got := len(env.Recorders()); got != want {
			t.Errorf("n=%d: %d recorders, want %d", n, got, want)
		}
		if n > 0 && env.Recorder(n-1) == nil {
			t.Errorf("n=%d: worker %d has no recorder", n, n-1)
		}
	}
}
