package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// A threshold on target.fds_per_unit fails the run when the watched
// server leaks an fd per request and passes when it does not; `run`
// prints the check and `report` renders it.
func TestFDsPerUnitThreshold(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("counts the target's fds from /proc: Linux only")
	}
	bin := testbin.Build(t, "./testdata/fdserver")
	for _, c := range []struct {
		leak bool
		code int
		mark string
	}{{false, exitOK, "check ok   target.fds_per_unit <= 5: "}, {true, exitFail, "check FAIL target.fds_per_unit <= 5: was "}} {
		t.Run(fmt.Sprintf("leak=%v", c.leak), func(t *testing.T) {
			addr := testbin.FreeAddr(t)
			path := filepath.Join(t.TempDir(), "plan.yaml")
			// 200 requests a second on at most 4 connections: a leak of
			// one fd per request is ~50 per connection, none is ~1.
			plan := fmt.Sprintf(`version: 1
targets:
  srv: {command: [%q, "-addr", %q, "-leak=%v"], ready: "http://%[2]s/healthz", sample: 100ms}
groups:
  - id: fds
    runner: http
    target: srv
    http: {requests: [{url: "http://%[2]s/ping"}]}
    load: {rate: 200, max_in_flight: 4}
    duration: 1s
    thresholds:
      checks:
        - {figure: target.fds_per_unit, "<=": 5}
        - {figure: errors, "==": 0}
`, bin, addr, c.leak)
			if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			code, stdout, stderr := runCmd(t, cmdRun, path, "-o", out)
			if code != c.code || !strings.Contains(stdout, c.mark) {
				t.Fatalf("exit %d, want %d; stdout lacks %q:\n%s\n%s", code, c.code, c.mark, stdout, stderr)
			}
			a := loadArtifacts(t, out)["fds"]
			st := a.Steps[0]
			t.Logf("fds %+v, %.2f per unit, %d requests", st.Target.FDs, st.Target.FDsPerUnit, st.Requests)
			if len(st.Checks) != 2 || st.Checks[0].Value != st.Target.FDsPerUnit || !st.Checks[1].OK {
				t.Errorf("checks %+v, want the fds check's value the step's fds_per_unit and no errors", st.Checks)
			}
			_, report, _ := runCmd(t, cmdReport, artifactFile(t, out))
			want := map[bool]string{false: "✓ target.fds_per_unit <= 5: ", true: "✗ target.fds_per_unit <= 5: was "}[c.leak]
			if !strings.Contains(report, want) {
				t.Errorf("report lacks %q:\n%s", want, report)
			}
		})
	}
}

// artifactFile is the one artifact in dir.
func artifactFile(t *testing.T, dir string) string {
	t.Helper()
	entries, err := artifacts.List(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("artifacts in %s: %v %v", dir, entries, err)
	}
	return entries[0].Path
}
