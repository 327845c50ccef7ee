package compare

import (
	"fmt"
	"math"
	"testing"

	"golang.org/x/perf/benchmath"
)

// TestCIPct checks the interval's half-width against benchmath's own
// rendering of it, and the cases that rendering cannot show as a number.
func TestCIPct(t *testing.T) {
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample([]float64{9, 10, 10, 10, 11, 12, 10.5}, &benchmath.DefaultThresholds), 0.95)
	if got, want := fmt.Sprintf("%.0f%%", ciPct(s)), s.PctRangeString(); got != want {
		t.Errorf("ciPct %s, benchmath %s", got, want)
	}
	few := benchmath.AssumeNothing.Summary(benchmath.NewSample([]float64{1, 2, 3}, &benchmath.DefaultThresholds), 0.95)
	if !math.IsInf(ciPct(few), 1) || len(few.Warnings) == 0 {
		t.Errorf("3 samples: ci %v, warnings %v; want +Inf with a warning", ciPct(few), few.Warnings)
	}
	if v := ciPct(benchmath.Summary{Center: 0, Lo: 0, Hi: 0}); v != 0 {
		t.Errorf("all zero: %v", v)
	}
}
