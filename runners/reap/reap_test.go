package reap

import (
	"slices"
	"testing"
)

// A marker matches itself and the markers of the benchtuis it started
// (extended with "/"), never a marker that only begins the same way; Env
// puts it last, once, whatever env held.
func TestMarkerMatchesItsTreeOnly(t *testing.T) {
	defer func(old string) { marker = old }(marker)
	marker = ""
	if Matches("") || Matches("x") {
		t.Fatal("Matches before Init")
	}
	if got := Env([]string{"A=1"}); !slices.Equal(got, []string{"A=1"}) {
		t.Fatalf("Env before Init: %q", got)
	}
	marker = "t-1/42-ab"
	for v, want := range map[string]bool{
		"t-1/42-ab": true, "t-1/42-ab/7-cd": true, "t-1/42-ab/7-cd/9-ef": true,
		"t-1/42-abc": false, "t-1": false, "": false, "x/t-1/42-ab": false,
	} {
		if Matches(v) != want {
			t.Errorf("Matches(%q) = %v, want %v", v, !want, want)
		}
	}
	got := Env([]string{MarkerVar + "=plan-set", "A=1", MarkerVar + "=again"})
	if !slices.Equal(got, []string{"A=1", MarkerVar + "=t-1/42-ab"}) {
		t.Errorf("Env: %q", got)
	}
}

func TestValidMarker(t *testing.T) {
	for v, want := range map[string]bool{"": true, "t-1/42-ab.c_d": true, "a b": false, "a\nb": false, "a=b": false, "é": false} {
		if validMarker(v) != want {
			t.Errorf("validMarker(%q) = %v", v, !want)
		}
	}
}
