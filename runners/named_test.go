package runners

import (
	"fmt"
	"testing"
	"time"
)

// TestNamesAreBounded: past MaxNames distinct names, operations are
// counted under OtherName; every operation is counted once, and its
// status too.
func TestNamesAreBounded(t *testing.T) {
	r := NewRecorder()
	now := time.Now()
	const names = MaxNames + 6
	for i := range names * 2 {
		r.Record(now.Add(-time.Millisecond), time.Time{}, now, Outcome{Name: fmt.Sprintf("n%d", i%names), Status: 200 + i%2})
	}
	r.Record(now, now, now, Outcome{}) // unnamed, no status: the step's only
	iv := r.Swap(NewRecorder().latency, NewRecorder().service)
	var sum int64
	for _, n := range iv.Named {
		sum += n.Requests
	}
	if len(iv.Named) != MaxNames+1 || iv.Named[OtherName] == nil || sum != names*2 || iv.Requests != names*2+1 {
		t.Errorf("%d names (other: %v), %d named of %d operations; want %d names with %q and every named operation counted",
			len(iv.Named), iv.Named[OtherName] != nil, sum, iv.Requests, MaxNames+1, OtherName)
	}
	if iv.Status["200"] != names || iv.Status["201"] != names {
		t.Errorf("status counts %v, want %d each", iv.Status, names)
	}
}
