package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/pgload/pgtest"
)

// TestShardedVerifyRunsOnTheMerge: two real shards insert into one real
// Postgres. Only shard 0 runs the setup (a CREATE TABLE that fails when
// run twice); neither shard judges verify on its share of the counts; the
// merge with --plan runs it once on the merged count, which the table's
// rows match, and without --plan says how to run it. A plan other than
// the shards' is refused.
func TestShardedVerifyRunsOnTheMerge(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	text := fmt.Sprintf(`version: 1
groups:
  - id: stamps
    runner: postgres
    postgres:
      dsn: %q
      setup: ["CREATE TABLE stamps(id bigserial PRIMARY KEY)"]
      statements: [{name: stamp, sql: "INSERT INTO stamps DEFAULT VALUES"}]
      verify:
        - {name: every insert stored, sql: "SELECT count(*) FROM stamps", "==": "{{requests}}"}
    load: {concurrency: 2}
    iterations: 120
`, dsn)
	plan := writePlanText(t, text)
	benchtuiBinary(t) // built before the start time is chosen
	start := shardStartAt()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dirs := []string{t.TempDir(), t.TempDir()}
	var kids []*child
	for i, d := range dirs {
		kids = append(kids, startBinary(t, ctx, "run", plan, "--shard", fmt.Sprintf("%d/2", i), "--run-id", "r-pg", "--start-at", start, "--start-tolerance", testStartTolerance, "-o", d))
	}
	for i, c := range kids {
		if code := c.wait(); code != exitOK {
			t.Fatalf("shard %d: exit %d\n%s", i, code, c.stderr.String())
		}
	}
	for i, d := range dirs {
		if checks := loadArtifacts(t, d)["stamps"].Steps[0].Checks; len(checks) != 0 {
			t.Errorf("shard %d judged %+v on its share of the counts", i, checks)
		}
	}
	out := t.TempDir()
	code, _, stderr := runCmd(t, cmdMerge, dirs[0], dirs[1], "-o", out)
	if a := loadArtifacts(t, out)["stamps"]; code != exitOK || !strings.Contains(strings.Join(a.Notes, " "), "merge --plan PLAN") {
		t.Errorf("merge without --plan: exit %d, notes %q\n%s", code, a.Notes, stderr)
	}
	out = t.TempDir()
	if code, _, stderr := runCmd(t, cmdMerge, dirs[0], dirs[1], "--plan", plan, "-o", out); code != exitOK {
		t.Fatalf("merge --plan: exit %d\n%s", code, stderr)
	}
	s := loadArtifacts(t, out)["stamps"].Steps[0]
	if c := checkNamed(s.Checks, "every insert stored"); s.Requests != 120 || c == nil || !c.OK || c.Value != 120 {
		t.Errorf("merged: %d requests, verify %+v; want 120 rows for 120 inserts", s.Requests, c)
	}
	other := writePlanText(t, text+"# another plan\n")
	if code, _, stderr := runCmd(t, cmdMerge, dirs[0], dirs[1], "--plan", other, "-o", t.TempDir()); code != exitUsage || !strings.Contains(stderr, "not the plan the shards ran") {
		t.Errorf("merge --plan of another plan: exit %d\n%s", code, stderr)
	}
}

// checkNamed is the check of that name, nil when there is none.
func checkNamed(checks []artifacts.Check, name string) *artifacts.Check {
	for i := range checks {
		if checks[i].Name == name {
			return &checks[i]
		}
	}
	return nil
}

// TestShardsRefuseAnEmbeddedDatabase: each shard would start a database
// of its own, so a sharded postgres group on `dsn: embedded` is a plan
// error before anything starts.
func TestShardsRefuseAnEmbeddedDatabase(t *testing.T) {
	t.Parallel()
	plan := writePlanText(t, `version: 1
groups:
  - id: pg
    runner: postgres
    postgres: {dsn: embedded, statements: [{sql: "SELECT 1"}]}
    load: {concurrency: 2}
    duration: 1s
`)
	start := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	code, _, stderr := runCmd(t, cmdRun, plan, "--shard", "0/2", "--run-id", "r", "--start-at", start, "--start-tolerance", testStartTolerance, "-o", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "group pg: postgres.dsn: embedded") {
		t.Errorf("exit %d, want 2 naming the group and the key:\n%s", code, stderr)
	}
}
