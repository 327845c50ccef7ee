//go:build linux

package spawn

import (
	"context"
	"testing"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// benchCycles times whole cycles of spec (start to ready, stop, reap,
// sweep); bench/spawn-vs-hyperfine.sh compares the time to ready with
// hyperfine's.
func benchCycles(b *testing.B, spec Spec) {
	r, err := NewRunner(&spec)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if err := r.Prepare(ctx, runners.NewStepEnv(&plan.Group{ID: "b"}, plan.Load{}, 1)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if res := r.cycle(ctx); res.kind != "" {
			b.Fatalf("cycle failed: %s", res.kind)
		}
	}
}

func BenchmarkCycleExitTrue(b *testing.B) { benchCycles(b, Spec{Command: []string{"/bin/true"}}) }

func BenchmarkCycleExitGo(b *testing.B) {
	benchCycles(b, Spec{Command: []string{helperBin, "-exit"}})
}

func BenchmarkCycleStdoutGo(b *testing.B) {
	benchCycles(b, Spec{Command: []string{helperBin}, Ready: "stdout:/^http /"})
}
