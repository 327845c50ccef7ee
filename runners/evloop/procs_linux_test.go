//go:build linux

package evloop

import (
	"runtime"
	"testing"
)

// TestReservePAddsOneAndGivesBack: each Drive adds a P while it runs and
// sizes its loops by the GOMAXPROCS before any Drive added one; the last
// release sets it back.
func TestReservePAddsOneAndGivesBack(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	loops, release := reserveP()
	if loops != 2 || runtime.GOMAXPROCS(0) != 3 {
		t.Fatalf("one drive: %d loops, GOMAXPROCS %d; want 2 and 3", loops, runtime.GOMAXPROCS(0))
	}
	loops2, release2 := reserveP()
	if loops2 != 2 || runtime.GOMAXPROCS(0) != 4 {
		t.Fatalf("two drives: %d loops, GOMAXPROCS %d; want 2 and 4", loops2, runtime.GOMAXPROCS(0))
	}
	release()
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Errorf("one drive left: GOMAXPROCS %d, want 3", got)
	}
	release2()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("none left: GOMAXPROCS %d, want 2", got)
	}
}
