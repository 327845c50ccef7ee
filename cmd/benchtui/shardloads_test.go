package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestShardedLoadsSendTheirShare: two shards of a `loads:` group of two
// open loops (100/s each for 2 s) send what one run would, 400 requests
// by the server's count, not each shard the whole rate (800): every load
// is striped and its workers split between the shards.
func TestShardedLoadsSendTheirShare(t *testing.T) {
	t.Parallel()
	srv, served := runnertest.CountingServer(t, time.Millisecond)
	path := filepath.Join(t.TempDir(), "plan.yaml")
	plan := fmt.Sprintf(`version: 1
groups:
  - id: mixed
    duration: 2s
    loads:
      - {name: a, runner: http, http: {requests: [{url: "%[1]s/a"}]}, load: {rate: 100, max_in_flight: 20}}
      - {name: b, runner: http, http: {requests: [{url: "%[1]s/b"}]}, load: {rate: 100, max_in_flight: 20}}
`, srv.URL)
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	benchtuiBinary(t) // built before the start time is chosen
	start := shardStartAt()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var kids []*child
	for i := range 2 {
		args := []string{"run", path, "--shard", fmt.Sprintf("%d/2", i), "--run-id", "r-loads", "--start-at", start, "--start-tolerance", testStartTolerance, "-o", t.TempDir()}
		kids = append(kids, startBinaryTo(t, ctx, nil, args...))
	}
	for i, c := range kids {
		if code := c.wait(); code != exitOK {
			t.Fatalf("shard %d: exit %d\n%s", i, code, c.stderr.String())
		}
	}
	// 400 due; a shard starting late on a busy machine sends a little less.
	if n := served.Load(); n < 300 || n > 440 {
		t.Errorf("the server counted %d requests from two shards of 2 loads × 100/s × 2 s, want about 400", n)
	}
}
