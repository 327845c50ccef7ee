package reqlog

import (
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1GiB": 1 << 30, "500MB": 5e8, "64K": 64 << 10, "4096": 4096, " 2 MiB ": 2 << 20} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1KiB", "1.5GiB", "GiB", "9999999999TiB", "1 parsec"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) took it", bad)
		}
	}
	if FormatSize(1<<30) != "1GiB" || FormatSize(4096) != "4KiB" || FormatSize(1000) != "1000B" {
		t.Error(FormatSize(1<<30), FormatSize(4096), FormatSize(1000))
	}
}

// TestOrdererWritesEachAttackInDueOrder: records arriving in end order
// come out in due order, numbered from 0 in each attack.
func TestOrdererWritesEachAttackInDueOrder(t *testing.T) {
	t0 := time.Now()
	var o orderer
	for _, d := range []int{3, 1, 2, 0, 5, 4} {
		for _, g := range []string{"a", "b"} {
			o.add(g, runners.RequestRecord{Group: g, Due: t0.Add(time.Duration(d) * time.Millisecond)})
		}
	}
	o.release(t0.Add(3*time.Millisecond), func(runners.RequestRecord, uint64) {})
	if o.held != 6 {
		t.Fatalf("held %d after releasing those due before 3 ms, want 6", o.held)
	}
	last := map[string]time.Time{}
	next := map[string]uint64{}
	o.release(time.Time{}, func(r runners.RequestRecord, seq uint64) {
		if r.Due.Before(last[r.Group]) || seq != next[r.Group]+3 {
			t.Errorf("%s: due %v after %v, seq %d", r.Group, r.Due.Sub(t0), last[r.Group].Sub(t0), seq)
		}
		last[r.Group], next[r.Group] = r.Due, next[r.Group]+1
	})
	if o.held != 0 || next["a"] != 3 || next["b"] != 3 {
		t.Errorf("held %d, released %v", o.held, next)
	}
}
