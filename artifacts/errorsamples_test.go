package artifacts

import (
	"fmt"
	"testing"
)

// TestErrorSamplesAreBounded: a kind keeps its first few distinct
// messages, and only so many kinds keep any; a merge adds another
// step's by the same rule.
func TestErrorSamplesAreBounded(t *testing.T) {
	var m map[string][]string
	for i := range 10 {
		m = AddErrorSample(m, "other", fmt.Sprintf("msg %d", i%4))
		m = AddErrorSample(m, "other", "msg 0")
	}
	if got := m["other"]; len(got) != MaxErrorSamples || got[0] != "msg 0" || got[1] != "msg 1" {
		t.Errorf("samples %q: want the first %d distinct", got, MaxErrorSamples)
	}
	for i := range 2 * MaxErrorSampleKinds {
		m = AddErrorSample(m, fmt.Sprintf("k%02d", i), "x")
	}
	if len(m) != MaxErrorSampleKinds || AddErrorSample(m, "sqlstate_x", "")["sqlstate_x"] != nil {
		t.Errorf("%d kinds: want at most %d, an empty message none", len(m), MaxErrorSampleKinds)
	}
	merged := MergeErrorSamples(map[string][]string{"a": {"one"}}, map[string][]string{"a": {"one", "two"}, "b": {"three"}})
	if fmt.Sprint(merged) != "map[a:[one two] b:[three]]" {
		t.Errorf("merged %v", merged)
	}
}
