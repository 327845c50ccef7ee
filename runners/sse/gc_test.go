package sse

import (
	"runtime/debug"
	"testing"
)

// gcPercent reads the collector's percent without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestHoldLowGCWhileManyStreamsAreHeld(t *testing.T) {
	t.Setenv("GOGC", "") // the variable unset, as a run without it
	before := gcPercent()
	holdLowGC(heldGCFrom - 1)()
	if got := gcPercent(); got != before {
		t.Fatalf("a step of %d streams set GC percent %d", heldGCFrom-1, got)
	}
	a := holdLowGC(heldGCFrom)
	b := holdLowGC(2 * heldGCFrom) // a second sse load of the same step
	if got := gcPercent(); got != heldGCPercent {
		t.Errorf("while held: GC percent %d, want %d", got, heldGCPercent)
	}
	a()
	a() // a second call does nothing
	if got := gcPercent(); got != heldGCPercent {
		t.Errorf("one holder left: GC percent %d, want %d", got, heldGCPercent)
	}
	b()
	if got := gcPercent(); got != before {
		t.Errorf("after the last holder: GC percent %d, want %d restored", got, before)
	}
	t.Setenv("GOGC", "200")
	holdLowGC(heldGCFrom)
	if got := gcPercent(); got != before {
		t.Errorf("GOGC set: GC percent %d, want it left at %d", got, before)
	}
}
