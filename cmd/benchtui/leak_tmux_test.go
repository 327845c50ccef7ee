package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLeakWarningUnderTmux: the real console on a group without soak:
// whose demo target retains 150 MiB/min marks the group ⚠ and shows the
// banner with the whole-run slope while it runs, ends it "⚠ RSS still
// rising", and says so in the quit summary.
func TestLeakWarningUnderTmux(t *testing.T) {
	t.Parallel()
	cwd := filepath.Join(t.TempDir(), "work")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	plan := leakLoopPlanText(t, benchtuiBinary(t), "/leak?kb=64", "15s")
	if err := os.WriteFile(filepath.Join(cwd, "bench.yaml"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startConsole(t, "leak", cwd, "", 100, 30)
	c.waitFor("the group", `fix\s+idle`)
	c.send("Enter")
	c.waitFor("the banner and the title's mark while it runs",
		`⚠ api RSS still rising \+\d+\.\d±\d+\.\d MB/min \(whole run, \d+ s\)`, `running ⚠`)
	c.waitFor("the ending", `ended ⚠ RSS still rising`, `⚠ RSS still rising: slope \+\d+`)
	c.send("q")
	c.waitFor("the summary", `exit=\d`, `fix\s+⚠ RSS still rising`)
}
