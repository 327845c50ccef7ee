package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// writeShardPlan writes an open-loop plan against url with a p99
// threshold, for three shards.
func writeShardPlan(t *testing.T, url string) string {
	t.Helper()
	plan := fmt.Sprintf(`version: 1
groups:
  - id: sharded
    runner: http
    http: {requests: [{url: "%s/s"}]}
    load: {rate: 150, max_in_flight: 12}
    duration: 4s
    thresholds: {p99: 10s, error_rate: 0}
`, url)
	return writePlanText(t, plan)
}

// TestShardsMergeToTheServersCount runs three real shards on one start
// time against a counting server: the merge counts what the server
// served, and its p99 is that of the shards' histograms merged. Shard 2's
// artifact is read from its stdout, as kubectl logs --prefix gives it
// (through a stand-in kubectl: no cluster runs here). Shard 1 writes its
// ready file. A missing shard is refused, and a start already past exits 3.
func TestShardsMergeToTheServersCount(t *testing.T) {
	t.Parallel()
	srv, served := runnertest.CountingServer(t, time.Millisecond)
	plan := writeShardPlan(t, srv.URL)
	benchtuiBinary(t) // built before the start time is chosen
	start := shardStartAt()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dirs := make([]string, 3)
	var kids []*child
	ready := filepath.Join(t.TempDir(), "ready")
	logs := make([]bytes.Buffer, 3) // each shard's stdout, as kubectl logs would give it
	for i := range dirs {
		dirs[i] = t.TempDir()
		args := []string{"run", plan, "--shard", fmt.Sprintf("%d/3", i), "--run-id", "r-test", "--start-at", start, "--start-tolerance", testStartTolerance, "-o", dirs[i]}
		if i == 1 {
			args = append(args, "--ready-file", ready)
		}
		kids = append(kids, startBinaryTo(t, ctx, &logs[i], args...))
	}
	for i, c := range kids {
		if code := c.wait(); code != exitOK {
			t.Fatalf("shard %d: exit %d\n%s", i, code, c.stderr.String())
		}
	}
	if b, err := os.ReadFile(ready); err != nil || !strings.HasPrefix(string(b), time.Unix(mustAtoi(t, start), 0).UTC().Format("2006-01-02T15:04:05")) {
		t.Errorf("shard 1's ready file: %q, %v; want its start time", b, err)
	}
	logFile := writeLog(t, logs[2].Bytes())
	kubectl, _ := standInKubectl(t, 0, false, logFile)
	if code, _, stderr := runCmd(t, cmdMerge, dirs[0], dirs[1], logFile, "-o", t.TempDir()); code != exitOK {
		t.Errorf("merge with shard 2 from its log file: exit %d\n%s", code, stderr)
	}
	out := t.TempDir()
	code, _, stderr := runCmd(t, cmdMerge, dirs[0], dirs[1], "k8s:bench/job", "--kubectl", kubectl, "-o", out)
	if code != exitOK {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	merged := loadArtifacts(t, out)["sharded"]
	if merged == nil {
		t.Fatalf("no merged artifact in %s", out)
	}
	s := merged.Steps[0]
	if s.Requests != served.Load() {
		t.Errorf("merged artifact counts %d requests, the server served %d", s.Requests, served.Load())
	}
	if p99 := shardsP99(t, dirs); s.LatencyMS.P99 != p99 {
		t.Errorf("merged p99 %.3f ms, the shards' histograms merged give %.3f ms", s.LatencyMS.P99, p99)
	}
	mergedHLogCounts(t, out, s)
	if len(s.Checks) == 0 || s.Checks[0].Name != "p99 <= 10s" {
		t.Errorf("merged checks %+v: want the thresholds judged again", s.Checks)
	}
	if n := s.Samples.N(artifacts.SampleRPS); n < 3 || s.Samples.Blocks != nil {
		t.Errorf("merged samples: %d blocks of rps (want the 4 s step's, rebuilt from the shards'), blocks kept %v", n, s.Samples.Blocks != nil)
	}
	watchLogs(t, kids, s.Requests, s.LatencyMS.P99)
	kubeRunMerges(t, plan, writeLog(t, slices.Concat(logs[0].Bytes(), logs[1].Bytes(), logs[2].Bytes())), served.Load())
	compareToOneProcess(t, plan, out)
	if code, _, stderr := runCmd(t, cmdMerge, dirs[0], dirs[2], "-o", t.TempDir()); code != exitUsage {
		t.Errorf("merge without shard 1: exit %d, want 2\n%s", code, stderr)
	}
	past := strconv.FormatInt(time.Now().Add(-10*time.Second).Unix(), 10)
	if code, _, stderr := runCmd(t, cmdRun, plan, "--shard", "0/3", "--run-id", "r-late", "--start-at", past, "-o", t.TempDir()); code != exitMissedStart {
		t.Errorf("a start 10s past: exit %d, want 3\n%s", code, stderr)
	}
}

// mergedHLogCounts checks the merged step's interval log, joined from
// the shards' logs carried in their artifacts: its intervals count every
// request, and the series has a point for each of them but the drain's.
func mergedHLogCounts(t *testing.T, dir string, s artifacts.Step) {
	t.Helper()
	hs, err := artifacts.ReadIntervalLog(filepath.Join(dir, s.HLog))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, h := range hs {
		n += h.TotalCount()
	}
	if n != s.Requests || len(s.Series) < len(hs)-1 || len(s.Series) > len(hs) || len(hs) < 4 {
		t.Errorf("merged .hlog: %d intervals counting %d of %d requests, %d series points", len(hs), n, s.Requests, len(s.Series))
	}
}

// writeLog saves a shard's output in a file.
func writeLog(t *testing.T, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shards.log")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// kubeRunMerges runs kube run on the plan against a stand-in kubectl whose
// Job gets ready and completes and whose pods logged log: kube run merges
// the shards from the pods' logs into one artifact of the server's count
// and exits with its verdict.
func kubeRunMerges(t *testing.T, plan, log string, served int64) {
	t.Helper()
	defer func(d time.Duration) { kubePoll = d }(kubePoll)
	kubePoll = 50 * time.Millisecond
	kubectl, _ := standInKubectl(t, 3, true, log)
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, cmdKube, "run", plan, "-g", "sharded", "--shards", "3", "--image", "reg/benchtui:1",
		"--start-in", "3s", "--ready-by", "1s", "--kubectl", kubectl, "-o", out)
	a := loadArtifacts(t, out)["sharded"]
	if code != exitOK || a == nil || a.Steps[0].Requests != served || !strings.Contains(stdout, "✓ pass") {
		t.Fatalf("kube run: exit %d, merged %v (the server served %d)\n%s%s", code, a != nil, served, stdout, stderr)
	}
}

// shardsP99 is the p99 (ms) of the shards' latency histograms merged.
func shardsP99(t *testing.T, dirs []string) float64 {
	t.Helper()
	h := artifacts.NewHistogram()
	for _, d := range dirs {
		for _, a := range loadArtifacts(t, d) {
			got, err := artifacts.DecodeHistogram(a.Steps[0].Histogram)
			if err != nil {
				t.Fatal(err)
			}
			h.Merge(got)
		}
	}
	return float64(h.ValueAtQuantile(99)) / 1000
}

func mustAtoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// compareToOneProcess runs the plan on one process and compares it with
// the merged run: the same total rate is the same throughput ("same"),
// judged on the merged run's rebuilt block samples.
func compareToOneProcess(t *testing.T, plan, merged string) {
	t.Helper()
	single := t.TempDir()
	if code, _, stderr := runCmd(t, cmdRun, plan, "-o", single); code != exitOK {
		t.Fatalf("one process: exit %d\n%s", code, stderr)
	}
	_, out, stderr := runCmd(t, cmdCompare, single, merged, "--format", "json")
	var cmp struct {
		Rows []struct {
			Metric, Verdict string
			DeltaPct        *float64 `json:"delta_pct"`
			NBase           int      `json:"n_base"`
			NCurrent        int      `json:"n_current"`
		}
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatalf("compare: %v\n%s%s", err, out, stderr)
	}
	for _, r := range cmp.Rows {
		if r.Metric == compare.MetricThroughput {
			// Judged as a ratio, not by the verdict: the one process runs
			// after the shards, and a machine busier then (a -p 3 suite)
			// lowers its throughput enough to be judged. A merge that
			// summed or split the shards wrongly would be off by +200% or
			// -67%.
			delta := math.NaN()
			if r.DeltaPct != nil {
				delta = *r.DeltaPct
			}
			if !(math.Abs(delta) <= 20) || r.NCurrent < 3 {
				t.Errorf("throughput of one process against three shards at the same total rate: %s, delta %.1f%%, %d against %d samples; want within 20%% on the merged samples", r.Verdict, delta, r.NBase, r.NCurrent)
			}
			return
		}
	}
	t.Errorf("no throughput row in:\n%s", out)
}

// watchLogs saves each shard's stderr in a folder, as an SSH run would,
// and checks that watch merges their live lines into the merged
// artifact's request count and p99.
func watchLogs(t *testing.T, kids []*child, requests int64, p99 float64) {
	t.Helper()
	dir := t.TempDir()
	for i, c := range kids {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("shard-%d.log", i)), []byte(c.stderr.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, stderr := runCmd(t, cmdWatch, dir, "--once")
	want := fmt.Sprintf("shards 3/3 requests %d ", requests)
	if code != exitOK || !strings.Contains(out, want) || !strings.Contains(out, fmt.Sprintf("p99 %.2fms", p99)) {
		t.Errorf("watch: exit %d, want %q and p99 %.2fms in:\n%s%s", code, want, p99, out, stderr)
	}
}

// shardStartAt is a --start-at for shards the test starts now: 10 s
// ahead, as a shard not started 2 s after it exits 3 (one started on a
// busy machine 11.4 s after its start time was chosen 3 s ahead).
func shardStartAt() string {
	return strconv.FormatInt(time.Now().Add(10*time.Second).Unix(), 10)
}

// testStartTolerance is the tests' --start-tolerance: a busy machine
// made a shard's second group ready 2.04 s after its start, past the
// default 2 s (TestMergeJudgesRelativeChecks at load 20); the merged
// figures these tests judge are counts and latencies, which a shard
// starting a few seconds late does not change.
const testStartTolerance = "10s"
