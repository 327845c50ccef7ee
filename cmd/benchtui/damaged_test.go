package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// damagedArtifact writes the artifacts package's golden artifact with
// old replaced by new (once) under a name of its own, and returns it.
func damagedArtifact(t *testing.T, old, new string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "artifacts", "testdata", "artifact.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !strings.Contains(s, old) {
		t.Fatalf("the golden artifact has no %q", old)
	}
	path := filepath.Join(t.TempDir(), "G5-1796040000000.json")
	if err := os.WriteFile(path, []byte(strings.Replace(s, old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// damagedCases are figures out of range and the field each error names.
var damagedCases = []struct{ old, new, field string }{
	{`"requests": 3198945`, `"requests": -5`, "steps[0].requests"},
	{`"p99": 9.903`, `"p99": 1.7e308`, "steps[0].latency_ms.p99"},
	{`"label": "concurrency=50"`, `"label": "concurrency=50"`, ""}, // undamaged
}

// TestDamagedFiguresExit2: report and compare refuse an artifact whose
// figures are out of range with exit 2, naming the file and the field,
// and the real binary exits 2 too; the undamaged golden artifact passes.
func TestDamagedFiguresExit2(t *testing.T) {
	t.Parallel()
	good := writeRun(t, 1, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), 5900, 1.2, 8)
	for _, tc := range damagedCases {
		bad := damagedArtifact(t, tc.old, tc.new)
		for name, run := range map[string]func() (int, string){
			"report":  func() (int, string) { c, _, e := runCmd(t, cmdReport, bad); return c, e },
			"compare": func() (int, string) { c, _, e := runCmd(t, cmdCompare, good, bad); return c, e },
		} {
			code, errOut := run()
			if tc.field == "" {
				if code == exitUsage {
					t.Errorf("%s of the golden artifact: exit 2: %s", name, errOut)
				}
				continue
			}
			if code != exitUsage || !strings.Contains(errOut, bad) || !strings.Contains(errOut, tc.field+": ") {
				t.Errorf("%s with %s: exit %d, stderr %q; want 2 naming %s and %s", name, tc.new, code, errOut, bad, tc.field)
			}
		}
	}
}

// TestDamagedFiguresExit2Binary runs the real binary on a damaged artifact.
func TestDamagedFiguresExit2Binary(t *testing.T) {
	t.Parallel()
	bad := damagedArtifact(t, `"p99": 9.903`, `"p99": -5`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, args := range [][]string{{"report", bad}, {"compare", bad, bad}} {
		cmd := exec.CommandContext(ctx, benchtuiBinary(t), args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != exitUsage || !strings.Contains(stderr.String(), "steps[0].latency_ms.p99: -5 out of range") {
			t.Errorf("%q: exit %d (%v), stderr %q; want 2 naming the field", args, code, err, stderr.String())
		}
	}
}
