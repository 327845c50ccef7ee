package reap

import "testing"

// A child benchtui started leads its own group in benchtui's session, or
// stays in benchtui's group; anything else came as an orphan.
func TestAdoptedTellsOrphansFromOwnStarts(t *testing.T) {
	me := ids{pid: 100, pgid: 100, sid: 50}
	cases := []struct {
		p    procStat
		want bool
	}{
		{procStat{pid: 200, pgid: 200, sid: 50}, false}, // own start, own group
		{procStat{pid: 201, pgid: 100, sid: 50}, false}, // own start, benchtui's group
		{procStat{pid: 202, pgid: 200, sid: 50}, true},  // a group leader's child, orphaned
		{procStat{pid: 203, pgid: 203, sid: 203}, true}, // a daemon: setsid
	}
	for _, c := range cases {
		if got := me.adopted(c.p); got != c.want {
			t.Errorf("adopted(%+v) = %v, want %v", c.p, got, c.want)
		}
	}
}
