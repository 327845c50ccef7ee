package report

import "testing"

func TestSuperscript(t *testing.T) {
	if got := superscript(12); got != "¹²" {
		t.Errorf("got %q", got)
	}
}
