package runners

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// TestDetailsKeepDistinctMessages: in one interval, a kind keeps its first
// distinct details up to artifacts.MaxErrorSamples, in order, a repeated
// detail once; another kind keeps its own (two assertions failing on one
// worker within one tick each show: a 400-request step once kept only the
// first).
func TestDetailsKeepDistinctMessages(t *testing.T) {
	r := NewRecorder()
	now := time.Now()
	for i := range 20 {
		r.Record(now, now, now, Outcome{Err: "assertion", Detail: fmt.Sprintf("assert[%d] failed", i%5)})
		r.Record(now, now, now, Outcome{Err: "status_5xx", Detail: "500"})
	}
	iv := r.Swap(NewRecorder().latency, NewRecorder().service)
	want := map[string][]string{"assertion": {"assert[0] failed", "assert[1] failed", "assert[2] failed"}, "status_5xx": {"500"}}
	if len(iv.Details) != len(want) || len(want["assertion"]) != artifacts.MaxErrorSamples {
		t.Fatalf("details %q, want %q", iv.Details, want)
	}
	for k, w := range want {
		if !slices.Equal(iv.Details[k], w) {
			t.Errorf("details of %s: %q, want %q", k, iv.Details[k], w)
		}
	}
	if iv := r.Swap(NewRecorder().latency, NewRecorder().service); iv.Details != nil {
		t.Errorf("details after the swap: %q, want none", iv.Details)
	}
}
