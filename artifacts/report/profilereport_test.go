package report_test

import (
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/artifactstest"
	"github.com/benchtui/benchtui/artifacts/report"
)

// TestReportWhatGotSlower: two runs of a group whose CPU profiles sit
// beside them give the report a "What got slower" table headed by the
// function that took the current run's CPU; a step whose RSS rose gets
// "What grew" from its heap profiles; a profile named but missing is a
// warning, not a failure.
func TestReportWhatGotSlower(t *testing.T) {
	dir := t.TempDir()
	artifactstest.WriteProfile(t, dir, "base-cpu.pb.gz", artifactstest.CPUProfile(map[string]int64{"x/demo.work;main.serve": 80, "runtime.gc": 20}))
	artifactstest.WriteProfile(t, dir, "cur-cpu.pb.gz", artifactstest.CPUProfile(map[string]int64{"x/demo.slowPath;main.serve": 60, "x/demo.work;main.serve": 30, "runtime.gc": 10}))
	artifactstest.WriteProfile(t, dir, "cur-heap-start.pb.gz", artifactstest.HeapProfile(map[string]int64{"x/demo.leak": 1_000_000}))
	artifactstest.WriteProfile(t, dir, "cur-heap-end.pb.gz", artifactstest.HeapProfile(map[string]int64{"x/demo.leak": 9_500_000}))
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	run := func(at time.Time, profiles map[string]string) *artifacts.Artifact {
		return &artifacts.Artifact{Schema: artifacts.Schema, Dir: dir, Group: artifacts.Group{ID: "G1"}, Run: artifacts.Run{ID: "r", Started: at},
			Steps: []artifacts.Step{{Label: "", DurationS: 2, Profiles: profiles}}}
	}
	base := run(t0, map[string]string{"cpu": "base-cpu.pb.gz"})
	cur := run(t0.Add(time.Hour), map[string]string{"cpu": "cur-cpu.pb.gz", "heap_start": "cur-heap-start.pb.gz", "heap_end": "cur-heap-end.pb.gz"})
	cur.Steps[0].Target = &artifacts.TargetStats{RSSRising: true, RSSSlopeMBPerMin: 30}
	got := strings.Join(strings.Fields(report.Report([]*artifacts.Artifact{base, cur})), " ")
	for _, want := range []string{
		"### What got slower: CPU share by function",
		"| demo.slowPath | 0.0 | 60.0 | +60.0 | 0.0 | 60.0 |",
		"### What grew: heap in use by allocation site",
		"| demo.leak | 1.00 | 9.50 | +8.50 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if i, j := strings.Index(got, "| demo.slowPath |"), strings.Index(got, "| main.serve | 0.0 | 0.0 | +0.0 | 80.0 | 90.0 |"); i < 0 || j < i {
		t.Errorf("demo.slowPath does not head what got slower:\n%s", got)
	}
	cur.Steps[0].Profiles["cpu"] = "gone.pb.gz"
	cur.Steps[0].Profiles["heap_end"] = "../elsewhere.pb.gz"
	withWarnings := report.Report([]*artifacts.Artifact{base, cur})
	for _, want := range []string{"profiles: cpu: reading profile", `profiles: heap_end: profiles.heap_end "../elsewhere.pb.gz" is not a file name`} {
		if !strings.Contains(withWarnings, want) {
			t.Errorf("no warning %q:\n%s", want, withWarnings)
		}
	}
}
