//go:build linux

package pgload_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/reap"
	"github.com/benchtui/benchtui/runners/runnertest"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// skipWithoutPostgres skips only when no Postgres binaries exist at all.
func skipWithoutPostgres(t *testing.T) {
	t.Helper()
	if _, err := pgload.FindBinDir(""); errors.Is(err, pgload.ErrNoPostgres) {
		t.Skipf("no Postgres to test against: %v", err)
	}
}

// assertGone fails unless the cluster's postmaster has exited and its
// folder is removed.
func assertGone(t *testing.T, dir string, pid int) {
	t.Helper()
	if reap.Alive(pid) {
		t.Errorf("postgres pid %d still runs", pid)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("folder %s still exists (%v)", dir, err)
	}
}

func TestEmbeddedStopsOnSIGINT(t *testing.T) {
	t.Parallel()
	skipWithoutPostgres(t)
	cmd := exec.Command(testbin.Build(t, "./testdata/sigint"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatalf("helper printed nothing: %v", cmd.Wait())
	}
	var dir string
	var pid int
	if _, err := fmt.Sscanf(lines.Text(), "dir=%s pid=%d", &dir, &pid); err != nil {
		t.Fatalf("helper said %q: %v", lines.Text(), err)
	}
	if !reap.Alive(pid) {
		t.Fatalf("postgres pid %d is not running", pid)
	}
	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() { // drain to EOF before Wait
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	assertGone(t, dir, pid)
}

func TestEmbeddedOptionsAndIdempotentStop(t *testing.T) {
	t.Parallel()
	skipWithoutPostgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := pgload.StartEmbedded(ctx, pgload.EmbeddedOptions{MaxConnections: 250,
		Settings: map[string]string{"work_mem": "'8MB'"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	if len(filepath.Join(e.Dir(), ".s.PGSQL.65535")) > 107 {
		t.Errorf("socket path in %s is too long", e.Dir())
	}
	for sql, want := range map[string]string{"SHOW fsync": "off", "SHOW max_connections": "250",
		"SHOW work_mem": "8MB", "SHOW synchronous_commit": "off", "SHOW full_page_writes": "off"} {
		if got := query[string](t, e.DSN(), sql); got != want {
			t.Errorf("%s = %q, want %q", sql, got, want)
		}
	}
	if b, err := os.ReadFile(e.PIDFile()); err != nil || !strings.HasPrefix(string(b), fmt.Sprint(e.PID())) {
		t.Errorf("pid file %s: %q, %v", e.PIDFile(), b, err)
	}
	done := make(chan error, 2)
	for range 2 { // concurrent callers, as a signal path and a deferred cleanup
		go func() { done <- e.Stop() }()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	assertGone(t, e.Dir(), e.PID())
}

// TestThroughTheEngine runs a plan with `dsn: embedded` through a real
// Session and Run: every operation counted once, pool warm, the cluster
// stopped by the run's cleanup.
func TestThroughTheEngine(t *testing.T) {
	t.Parallel()
	skipWithoutPostgres(t)
	plan := runnertest.ParsePlan(t, testRegistry, `version: 1
groups:
  - id: PG1
    runner: postgres
    postgres:
      dsn: embedded
      setup: ["CREATE TABLE hits(id bigint PRIMARY KEY, w int)"]
      statements:
        - {name: hit, sql: "INSERT INTO hits VALUES ($1, $2)", args: [$seq, $worker]}
      verify:
        - {name: every operation inserted one row, sql: "SELECT count(*) FROM hits", expect: "{{requests}}"}
    load: {concurrency: 8}
    duration: 1s
`, nil)
	run := engine.NewRun(plan, testRegistry, t.TempDir(), "test")
	defer run.Close()
	s, err := run.Session(context.Background(), plan.Groups[0])
	if err != nil {
		t.Fatal(err)
	}
	a := runnertest.RunSession(t, context.Background(), s)
	if len(a.Steps) != 1 {
		t.Fatalf("%d steps, want 1", len(a.Steps))
	}
	st := a.Steps[0]
	if st.Requests == 0 || st.Errors != 0 {
		t.Fatalf("requests %d errors %d %v", st.Requests, st.Errors, st.ErrorKinds)
	}
	if len(st.Checks) == 0 || !checks(&st)["every operation inserted one row"].OK {
		t.Errorf("checks %+v, want the row count to equal %d requests", st.Checks, st.Requests)
	}
	// The embedded server is the group's watched target: its process tree
	// (postmaster and backends) holds at least one fd per connection.
	if st.Target == nil || st.Target.RSSMB.Peak <= 0 || st.Target.FDs.Peak < 8 {
		t.Errorf("embedded postgres not watched: target %+v", st.Target)
	}
	if _, ok := st.ExtraMS["pool_wait"]; !ok {
		t.Errorf("no pool_wait timing in %v", st.ExtraMS)
	}
	var dir string
	var pid int
	for _, ev := range st.Events {
		if strings.HasPrefix(ev.Note, "embedded postgres:") {
			_, err = fmt.Sscanf(ev.Note, "embedded postgres: pid %d, port %d, folder %s", &pid, new(int), &dir)
		}
	}
	if dir == "" || err != nil {
		t.Fatalf("no embedded postgres event in %+v (%v)", st.Events, err)
	}
	run.Close()
	assertGone(t, dir, pid)
}
