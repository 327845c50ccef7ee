package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/livemerge"
)

// liveLog writes shard i of 2's live lines for group g: a line in the
// measured phase, then the step's end with n operations of latency ms.
func liveLog(t *testing.T, dir string, i int, n int64, ms int64) {
	t.Helper()
	h := artifacts.NewHistogram()
	for range n {
		h.RecordValue(ms * 1000)
	}
	enc, err := artifacts.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for j, phase := range []string{"measure", "done"} {
		l := livemerge.Line{Version: 1, RunID: "r1", Shard: i, Count: 2, Group: "g1", Step: 1, Steps: 1, Label: "rate=100",
			Phase: phase, At: time.Now().Add(time.Duration(j-2) * time.Second), Elapsed: 2, Requests: n, Hist: enc}
		line, _ := json.Marshal(l)
		fmt.Fprintf(&b, "g1 step 1/1 progress line\n%s\n", line)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("shard-%d.log", i)), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWatchConsoleUnderTmux: the console opens on a distributed run from
// its shards' logs in a folder; following its group shows the two shards'
// figures merged (300 + 200 operations, the p99 of both histograms), the
// group ends when both shards' lines say done, and its export is the live
// view, marked as such.
func TestWatchConsoleUnderTmux(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	logs := t.TempDir()
	liveLog(t, logs, 0, 300, 2)
	liveLog(t, logs, 1, 200, 40)
	plan := writePlanText(t, `version: 1
groups:
  - id: g1
    runner: http
    http: {requests: [{url: "http://127.0.0.1:9/x"}]}
    load: {rate: 100, max_in_flight: 10}
    duration: 2s
`)
	bin := benchtuiBinary(t)
	c := &tmuxConsole{t: t, socket: fmt.Sprintf("benchtui-watch-%d", os.Getpid()), name: "watch"}
	cmdline := fmt.Sprintf("NO_COLOR=1 %s watch %s --console %s; echo exit=$?; sleep 60", bin, logs, plan)
	if out, err := c.tmux("new-session", "-d", "-x", "110", "-y", "30", "-s", c.name, cmdline); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { c.tmux("kill-session", "-t", c.name) })
	c.waitFor("the plan's group", `g1\s+idle`)
	c.send("Enter")
	// 500 operations over the shards' 2 s; the live view is exported as
	// partial (never a baseline), with a note saying what it is.
	c.waitFor("the merged step, done", `g1\s+partial\s+250/s p99 40\.0`, `2/2 shards · done`)
	c.send("q")
	screen := c.waitFor("the exit and the exported live view", `exit=0`, `benchtui-watch-`)
	path := artifactPathIn(screen)
	a, err := artifacts.Load(path)
	if err != nil {
		t.Fatalf("exported %q: %v\n%s", path, err, screen)
	}
	s := a.Steps[0]
	if s.Requests != 500 || s.LatencyMS.P99 < 39 || !strings.Contains(strings.Join(a.Notes, " "), "live view of a distributed run") {
		t.Errorf("exported step: %d requests, p99 %.1f ms, notes %q; want 500, the 40 ms shard's tail, marked live view", s.Requests, s.LatencyMS.P99, a.Notes)
	}
}

// artifactPathIn is the first artifact path the console's summary names.
func artifactPathIn(screen string) string {
	for _, f := range strings.Fields(screen) {
		if strings.Contains(f, "benchtui-watch-") && strings.HasSuffix(f, ".json") {
			return f
		}
	}
	return ""
}
