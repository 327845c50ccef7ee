package probe

import (
	"math"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/plan"
)

// TestTailSlopeReadsOnlyTheWindow: a series flat for 10 s then rising 2 a
// second has a tail slope of 120/min over the last 3 s, and its gaps are
// not reads.
func TestTailSlopeReadsOnlyTheWindow(t *testing.T) {
	r := &running{spec: plan.Probe{Name: "heap"}}
	r.series.init()
	for i := 0; i <= 10; i++ {
		r.series.add(float64(i), 5)
	}
	for i := 11; i <= 15; i++ {
		r.series.add(float64(i), 5+2*float64(i-10))
	}
	r.series.gap(15.5)
	s := &Set{probes: []*running{r}}
	got, reads := s.TailSlope("heap", 3*time.Second)
	if math.Abs(got-120) > 1e-6 || reads != 3 {
		t.Errorf("tail slope %.3f/min over %d reads, want 120 over 3", got, reads)
	}
	if v, n := s.TailSlope("nope", time.Second); !math.IsNaN(v) || n != 0 {
		t.Errorf("unknown probe: %v, %d; want NaN, 0", v, n)
	}
	if v, _ := (*Set)(nil).TailSlope("heap", time.Second); !math.IsNaN(v) {
		t.Errorf("nil set: %v, want NaN", v)
	}
}
