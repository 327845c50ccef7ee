package artifacts

import (
	"strings"
	"testing"
)

// TestSoakVerdictJudgesTheWatchedSeries: a step extended by a policy on
// heap_inuse is a leak when that series' tail slope is still above the
// rule's, though RSS is flat, and settled when it is below; a series with
// no tail slope is said to be unknown, not settled by a zero.
func TestSoakVerdictJudgesTheWatchedSeries(t *testing.T) {
	cfg := map[string]any{"duration": "2s", "soak": map[string]any{"extend_while_rising": map[string]any{
		"series": "heap_inuse", "slope_per_min": 3e7, "step": "1s", "max": "4s"}}}
	extended := []Event{{Kind: EventExtended, Note: "+1s heap_inuse rising"}, {Kind: EventExtended, Note: "+1s heap_inuse rising"}}
	for _, tc := range []struct {
		name  string
		tail  *float64
		leak  bool
		words string
	}{
		{"rising", ptr(4e8), true, "heap_inuse +4e+08/min (> 3e+07): leak suspected"},
		{"settled", ptr(1e6), false, "heap_inuse +1e+06/min (≤ 3e+07): settled"},
		{"unknown", nil, false, "heap_inuse slope unknown"},
	} {
		a := &Artifact{Group: Group{Config: cfg}, Steps: []Step{{Label: "s", Events: extended,
			Target:   &TargetStats{RSSTailSlopeMBMin: 0.1},
			Probes:   map[string]ProbeStats{"heap_inuse": {Samples: 20, TailSlopePerMin: tc.tail}},
			Profiles: map[string]string{"heap_start": "a.pb.gz", "heap_end": "b.pb.gz"}}}}
		e := Outcome(a)
		if len(e.Soaks) != 1 {
			t.Fatalf("%s: soaks %+v", tc.name, e.Soaks)
		}
		v := e.Soaks[0]
		if v.Leak != tc.leak || e.Leak() != tc.leak || v.Possible != 2 || !strings.Contains(v.String(), tc.words) {
			t.Errorf("%s: leak %v, possible %d, %q; want leak %v, 2 possible, %q", tc.name, v.Leak, v.Possible, v, tc.leak, tc.words)
		}
	}
}

func ptr(f float64) *float64 { return &f }
