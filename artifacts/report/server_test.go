package report

import (
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// TestReportListsLogCountsAndProfiles: a step's log counters and heap
// profiles have a table of their own in the report; other counters are
// left to their own tables.
func TestReportListsLogCountsAndProfiles(t *testing.T) {
	a := &artifacts.Artifact{Group: artifacts.Group{ID: "G1"}, Run: artifacts.Run{Started: time.Unix(1700000000, 0)}, Steps: []artifacts.Step{{
		Label:    "c=1",
		Counters: map[string]int64{"log.warn": 5, "reconnects": 2},
		Profiles: map[string]string{"heap_start": "G1-x-step1-run1-heap-start.pb.gz", "heap_end": "G1-x-step1-run1-heap-end.pb.gz"},
	}}}
	out := Report([]*artifacts.Artifact{a})
	for _, want := range []string{"Server log and profiles", "counters.log.warn", "G1-x-step1-run1-heap-end.pb.gz", "profiles.heap_start"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "counters.reconnects") {
		t.Errorf("report lists a runner counter as a server figure:\n%s", out)
	}
}
