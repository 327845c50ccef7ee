package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestRunPlanWithLoads runs a group of two loads headless: its artifact
// holds each load's figures, as many as its server saw, adding up to the
// step's; the report and compare list them by name.
func TestRunPlanWithLoads(t *testing.T) {
	t.Parallel()
	srvA, servedA := runnertest.CountingServer(t, 0)
	srvB, servedB := runnertest.CountingServer(t, 0)
	path := filepath.Join(t.TempDir(), "plan.yaml")
	plan := fmt.Sprintf(`version: 1
groups:
  - id: mixed
    duration: 1s
    loads:
      - {name: reads, runner: http, http: {requests: [{url: "%s/r"}]}, load: {concurrency: 2}}
      - {name: emits, runner: http, http: {requests: [{method: POST, url: "%s/e"}]}, load: {rate: 50, max_in_flight: 10}}
`, srvA.URL, srvB.URL)
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, cmdRun, path, "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	a := loadArtifacts(t, out)["mixed"]
	if a == nil || a.Group.Runner != "loads" || len(a.Steps) != 1 {
		t.Fatalf("artifact %+v", a)
	}
	st := a.Steps[0]
	reads, emits := st.ByName["reads"], st.ByName["emits"]
	if reads.Requests != servedA.Load() || emits.Requests != servedB.Load() || reads.Requests+emits.Requests != st.Requests {
		t.Errorf("reads %d (server %d), emits %d (server %d), step %d", reads.Requests, servedA.Load(), emits.Requests, servedB.Load(), st.Requests)
	}
	entries, _ := filepath.Glob(filepath.Join(out, "mixed-*.json"))
	if len(entries) != 1 {
		t.Fatalf("artifacts %v", entries)
	}
	code, report, stderr := runCmd(t, cmdReport, entries[0])
	if code != exitOK || !strings.Contains(report, "reads") || !strings.Contains(report, "emits") {
		t.Errorf("report exit %d, %s\n%s", code, stderr, report)
	}
	code, cmp, stderr := runCmd(t, cmdCompare, entries[0], entries[0])
	if code != exitOK || !strings.Contains(cmp, "[emits]") {
		t.Errorf("compare exit %d, %s\n%s", code, stderr, cmp)
	}
}
