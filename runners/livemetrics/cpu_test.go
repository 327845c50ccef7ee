package livemetrics_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/benchtui/benchtui/runners/livemetrics"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestCPUCounterIsTheTargetsCPUTime watches a target that spins for a 1 s
// run and wants benchtui_target_cpu_seconds_total to be its CPU time as
// the kernel counts it (/proc/PID/stat, read after the run while the
// target still spins): not above it, and below it by no more than one
// core could spend since the newest sample.
func TestCPUCounterIsTheTargetsCPUTime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the target's CPU time from /proc: Linux only")
	}
	target, _ := runnertest.CountingServer(t, time.Millisecond)
	src := fmt.Sprintf(`version: 1
targets:
  busy: {command: ["sh", "-c", "while :; do :; done"], sample: 250ms}
groups:
  - id: G1
    runner: http
    target: busy
    http: {requests: [{url: %q}]}
    load: {concurrency: 1}
    duration: 1s
`, target.URL)
	exp := livemetrics.New(livemetrics.Build{Version: "test"})
	srv := serve(t, exp)
	run, sess := observedSession(t, src, exp)
	var lastSnap time.Time
	for range sess.Snapshots() {
		lastSnap = time.Now()
	}
	f := families(t, scrape(t, srv.URL(), ""))["benchtui_target_cpu_seconds_total"]
	kernel := cpuSecondsOf(t, run.Running("busy").PID())
	since := time.Since(lastSnap).Seconds()
	if f.GetType() != dto.MetricType_COUNTER || len(f.Metric) != 1 || label(f.Metric[0], "target") != "busy" {
		t.Fatalf("benchtui_target_cpu_seconds_total: %v", f)
	}
	got := f.Metric[0].GetCounter().GetValue()
	t.Logf("counter %.2f s, the kernel %.2f s, %.2f s after the last snapshot", got, kernel, since)
	if got <= 0 || got > kernel+0.02 || kernel-got > since+0.25+0.1 {
		t.Errorf("counter %.2f s; the kernel counts %.2f s, %.2f s after the last snapshot (samples every 0.25 s)", got, kernel, since)
	}
}

// cpuSecondsOf is a process's user and system time from /proc/PID/stat
// (in clock ticks of 10 ms, Linux's USER_HZ).
func cpuSecondsOf(t *testing.T, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // after "pid (comm) "
	var utime, stime float64
	if _, err := fmt.Sscan(fields[11]+" "+fields[12], &utime, &stime); err != nil {
		t.Fatal(err)
	}
	return (utime + stime) / 100
}
