package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// writeShard writes shard i of 2 of one run into a folder of its own,
// after spoil changed it, and returns the file's path.
func writeShard(t *testing.T, i int, spoil func(*artifacts.Artifact)) string {
	t.Helper()
	h := artifacts.NewHistogram()
	for v := range int64(100) {
		h.RecordValue(1000 + v*int64(i+1))
	}
	enc, err := artifacts.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := &artifacts.Artifact{Schema: artifacts.Schema, Run: artifacts.Run{ID: "r", Started: start, Finished: start.Add(time.Second)},
		Group: artifacts.Group{ID: "g", Runner: "http"},
		Shard: &artifacts.ShardInfo{Index: i, Count: 2, RunID: "r", StartAt: start, PlanSHA256: "abc", ToolVersion: "v1"},
		Steps: []artifacts.Step{{Label: "concurrency=1", Requests: 100, DurationS: 1, ThroughputRPS: 100, OKRPS: 100,
			Histogram: enc, Histograms: artifacts.TimingHistograms(h, nil), Series: []artifacts.Point{}, Checks: []artifacts.Check{}, Events: []artifacts.Event{}}}}
	spoil(a)
	path, err := artifacts.Write(t.TempDir(), a)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMergeRefusesBadShardsByName: `benchtui merge` refuses, with exit 2
// and the file's name, shards whose counts are each in range but whose sums
// overflow, a shard without a step, shards of different start times, and a
// FIFO named like an artifact; each at once.
func TestMergeRefusesBadShardsByName(t *testing.T) {
	t.Parallel()
	both := func(f func(*artifacts.Artifact)) [2]func(*artifacts.Artifact) {
		return [2]func(*artifacts.Artifact){f, f}
	}
	keep := func(*artifacts.Artifact) {}
	cases := map[string]struct {
		spoil [2]func(*artifacts.Artifact)
		want  string
	}{
		"requests": {both(func(a *artifacts.Artifact) { a.Steps[0].Requests = math.MaxInt64 }), "requests: 9223372036854775807 + 9223372036854775807 overflows"},
		"dropped":  {both(func(a *artifacts.Artifact) { a.Steps[0].Dropped = 1 << 62 }), "dropped: 4611686018427387904 + 4611686018427387904 overflows"},
		"no step":  {[2]func(*artifacts.Artifact){keep, func(a *artifacts.Artifact) { a.Steps = nil }}, "shard 1 has no step"},
		"start_at": {[2]func(*artifacts.Artifact){keep, func(a *artifacts.Artifact) { a.Shard.StartAt = a.Shard.StartAt.Add(time.Minute) }}, "shard.start_at"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			shard1 := writeShard(t, 1, c.spoil[1])
			code, stdout, stderr := mergeWithin(t, writeShard(t, 0, c.spoil[0]), shard1)
			if code != exitUsage || !strings.Contains(stderr, shard1) || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want 2 naming %s and %q:\n%s%s", code, shard1, c.want, stdout, stderr)
			}
		})
	}
	t.Run("fifo", func(t *testing.T) {
		dir := filepath.Dir(writeShard(t, 0, keep))
		fifo := filepath.Join(dir, "g-1767322000000.json")
		if err := mkfifo(fifo); err != nil {
			t.Skip(err)
		}
		code, _, stderr := mergeWithin(t, dir)
		if code != exitUsage || !strings.Contains(stderr, fifo+" is a FIFO, not a regular file") {
			t.Errorf("exit %d, want 2 naming the FIFO:\n%s", code, stderr)
		}
	})
}

// mergeWithin runs `benchtui merge` on paths into a folder of the test,
// failing the test when it takes more than 10 seconds.
func mergeWithin(t *testing.T, paths ...string) (int, string, string) {
	t.Helper()
	return runWithin(t, 10*time.Second, cmdMerge, append(paths, "-o", t.TempDir())...)
}
