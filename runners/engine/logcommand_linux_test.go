package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLogCommandCounted: two targets attached by pid read their logs from
// a log.command. api's (a shell copying a FIFO to its output) prints one
// WARN at its start, before the measured phase (not counted), then the
// step's exec action writes 5 WARN lines into the FIFO: log.warn is 5. db's
// command exits at once: a note event, not a failed step. Once the run
// closes, api's log command process is gone, and its output file holds
// all 6 lines (the first written, not counted).
func TestLogCommandCounted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "poke")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	p := parseTestPlan(t, "logcmd.yaml", fmt.Sprintf(`version: 1
targets:
  api:
    pid: %[1]d
    log: {patterns: {warn: "WARN"}, command: [sh, -c, "echo WARN before; while :; do cat %[2]s; done"]}
  db:
    pid: %[1]d
    log: {patterns: {warn: "WARN"}, command: [sh, -c, "exit 3"]}
groups:
  - id: logcmd
    runner: sleep
    target: [api, db]
    sleep: {delay: 10ms}
    load: {concurrency: 1}
    warmup: 300ms
    duration: 1s
    actions:
      - {at: 200ms, exec: [sh, -c, "printf 'WARN 1\nWARN 2\nWARN 3\nWARN 4\nWARN 5\n' > %[2]s"]}
`, os.Getpid(), fifo))
	run := NewRun(p, testRegistry, dir, "test")
	defer run.Close()
	api, err := run.Target(context.Background(), "api")
	if err != nil {
		t.Fatal(err)
	}
	src := api.LogSource()
	if src == nil || src.LogPath() != filepath.Join(dir, "api-log.log") {
		t.Fatalf("api's log source %+v, want its output in api-log.log", src)
	}
	st := runOne(t, run, p.Groups[0])
	if st.Counters["log.warn"] != 5 || st.Counters["log.db/warn"] != 0 {
		t.Errorf("counters %v, want log.warn 5 and log.db/warn 0; events %+v", st.Counters, st.Events)
	}
	if !hasNote(st, "log of db: its log command ended early (exit 3)") {
		t.Errorf("no note of db's log command's early end: %+v", st.Events)
	}
	run.Close()
	if b, _ := os.ReadFile(src.LogPath()); strings.Count(string(b), "WARN") != 6 {
		t.Errorf("api-log.log holds %q, want the early WARN and the 5 counted", b)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", src.PID())); !os.IsNotExist(err) {
		t.Errorf("api's log command (pid %d) still there after Close: %v", src.PID(), err)
	}
}
