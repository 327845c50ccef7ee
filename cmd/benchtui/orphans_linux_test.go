package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// descendants lists the live (not zombie) processes under root, from /proc.
func descendants(t *testing.T, root int) map[int]string {
	t.Helper()
	kids := map[int][]testbin.Proc{}
	for _, p := range testbin.Procs(t) {
		kids[p.PPID] = append(kids[p.PPID], p)
	}
	out := map[int]string{}
	queue := []int{root}
	for len(queue) > 0 {
		for _, p := range kids[queue[0]] {
			if p.State != 'Z' {
				out[p.PID] = cmdline(p.PID)
				queue = append(queue, p.PID)
			}
		}
		queue = queue[1:]
	}
	return out
}

// processesUnder are the processes under pid (a decimal string) whose
// command line starts with bin, by pid: a console's own and its demo
// server's, not another test's.
func processesUnder(t *testing.T, pid, bin string) map[int]string {
	root, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatalf("pid %q: %v", pid, err)
	}
	out := map[int]string{}
	for p, line := range descendants(t, root) {
		if line == bin || strings.HasPrefix(line, bin+" ") {
			out[p] = line
		}
	}
	return out
}

// treeOf is the pids under pid (a decimal string), none when it is not one.
func treeOf(t *testing.T, pid string) []int {
	root, err := strconv.Atoi(pid)
	if err != nil {
		return nil
	}
	var out []int
	for p := range descendants(t, root) {
		out = append(out, p)
	}
	return out
}

// waitGone waits until none of pids runs, or wait has passed.
func waitGone(pids []int, wait time.Duration) {
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		alive := false
		for _, p := range pids {
			alive = alive || syscall.Kill(p, 0) == nil
		}
		if !alive {
			return
		}
	}
}

// cmdline is a process's command line, spaces between its arguments.
func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// alive reports whether pid runs (a zombie does not: it waits only for a
// parent's reaping, which in a container's PID 1 may never come).
func alive(t *testing.T, pid int) bool {
	for _, p := range testbin.Procs(t) {
		if p.PID == pid {
			return p.State != 'Z'
		}
	}
	return false
}

// waitDescendant polls until the run is in its measured phase and a
// process under it has a command line matching re, and returns every
// process under it then.
func waitDescendant(t *testing.T, c *child, re string) map[int]string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		procs := descendants(t, c.cmd.Process.Pid)
		for _, line := range procs {
			if regexp.MustCompile(re).MatchString(line) && strings.Contains(c.stderr.String(), " measure ") {
				return procs
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no process matching %q under benchtui after 60 s: %v\n%s", re, procs, c.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// assertAllGone polls (up to 20 s: the machine may be busy) until none of
// procs runs.
func assertAllGone(t *testing.T, procs map[int]string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		left := map[int]string{}
		for pid, line := range procs {
			if alive(t, pid) {
				left[pid] = line
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			killAll(left) // the test started them, through benchtui
			t.Fatalf("%d of %d processes still run 20 s after benchtui was killed: %v", len(left), len(procs), left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// killAll sends SIGKILL to every process of procs.
func killAll(procs map[int]string) {
	for pid := range procs {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// startPlan writes plan (${BIN} is the benchtui binary, ${ADDR} a free
// loopback address) and runs it with the real binary.
func startPlan(t *testing.T, ctx context.Context, plan string) (*child, string) {
	t.Helper()
	dir := t.TempDir()
	plan = strings.NewReplacer("${BIN}", benchtuiBinary(t), "${ADDR}", testbin.FreeAddr(t)).Replace(plan)
	path := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	return startBinary(t, ctx, "run", path, "-o", dir), dir
}

const (
	// targetPlan runs load against a spawned target, the demo server.
	targetPlan = `version: 1
targets:
  demo: {command: ["${BIN}", "demo-target", "--http", "${ADDR}"], ready: "tcp://${ADDR}"}
groups:
  - id: g
    runner: http
    target: demo
    http: {requests: [{url: "http://${ADDR}/ping"}]}
    load: {concurrency: 2}
    duration: 60s
`
	// spawnPlan's cycles run a process that lives for a minute.
	spawnPlan = `version: 1
groups:
  - id: g
    runner: spawn
    spawn: {command: ["sleep", "61"], cycles: 1, ready: exit, timeout: 120s}
    duration: 60s
`
	// pgPlan loads an embedded Postgres.
	pgPlan = `version: 1
groups:
  - id: g
    runner: postgres
    postgres: {dsn: embedded, statements: [{name: one, sql: "SELECT 1"}]}
    load: {concurrency: 2}
    duration: 60s
`
)

// TestSIGKILLLeavesNoChild kills the real binary with SIGKILL while it runs
// a spawned target, a spawn cycle and an embedded Postgres: every process
// it had started must be gone soon after (they get a parent-death signal;
// the reaper ends the rest), none carrying its marker either, and the
// killed cluster's folder is removed by the next embedded start. The
// other ways a run ends, and what leaves a process group, are in
// strays_linux_test.go.
func TestSIGKILLLeavesNoChild(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, plan, child string }{
		{"target", targetPlan, `demo-target`},
		{"spawn", spawnPlan, `^sleep 61$`},
		{"postgres", pgPlan, `postgres -D /tmp/btpg\d+-\d+/data`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "postgres" {
				skipWithoutPostgres(t)
			}
			c, marker := startMarkedPlan(t, tc.plan)
			procs := waitDescendant(t, c, tc.child)
			if tc.name == "postgres" {
				procs = waitPostgresUp(t, c)
			}
			t.Logf("%d processes under benchtui before SIGKILL", len(procs))
			c.cmd.Process.Signal(syscall.SIGKILL)
			c.wait()
			assertAllGone(t, procs)
			assertNoneMarked(t, marker)
			if tc.name == "postgres" {
				assertStaleClusterCleaned(t, procs)
			}
		})
	}
}

func skipWithoutPostgres(t *testing.T) {
	t.Helper()
	if _, err := pgload.FindBinDir(""); errors.Is(err, pgload.ErrNoPostgres) {
		t.Skipf("no Postgres to test against: %v", err)
	}
}

// waitPostgresUp waits until the embedded postmaster has its background
// processes (checkpointer and the rest) and returns the processes then.
func waitPostgresUp(t *testing.T, c *child) map[int]string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		procs := descendants(t, c.cmd.Process.Pid)
		if len(procs) >= 5 {
			return procs
		}
		if time.Now().After(deadline) {
			t.Fatalf("postgres has %d processes after 60 s: %v", len(procs), procs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitPostmasterReady waits until the embedded cluster of benchtui c
// accepts connections, by its postmaster.pid (whose status line says
// "ready"; initdb's own postgres processes write none), and returns the
// postmaster's PID.
func waitPostmasterReady(t *testing.T, c *child) int {
	t.Helper()
	pattern := fmt.Sprintf("/tmp/btpg%d-*/data/postmaster.pid", c.cmd.Process.Pid)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			data, _ := os.ReadFile(f)
			lines := strings.Split(string(data), "\n")
			if len(lines) > 7 && strings.TrimSpace(lines[7]) == "ready" {
				if pid, err := strconv.Atoi(strings.TrimSpace(lines[0])); err == nil {
					return pid
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no ready postmaster (%s) after 60 s\n%s", pattern, c.stderr.String())
	return 0
}

// assertStaleClusterCleaned finds the killed cluster's folder (it is left:
// nobody ran its cleanup) and checks that starting another embedded
// cluster removes it, unless another start on the machine already did.
func assertStaleClusterCleaned(t *testing.T, procs map[int]string) {
	t.Helper()
	var dir string
	for _, line := range procs {
		if m := regexp.MustCompile(`-D (/tmp/btpg\d+-\d+)/data`).FindStringSubmatch(line); m != nil {
			dir = m[1]
		}
	}
	if dir == "" {
		t.Fatalf("no cluster folder in the killed processes' command lines: %v", procs)
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		// Another embedded start on this machine (the Postgres tests of
		// another package run beside these) got there first: nothing else
		// removes a folder whose owner was killed.
		t.Logf("the killed cluster's folder %s was already removed by another embedded start", dir)
		return
	} else if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := pgload.StartEmbedded(ctx, pgload.EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed cluster's folder %s is still there after the next start (%v)", dir, err)
	}
}

// TestEmbeddedPostgresExitStopsTheRun kills the embedded postmaster in the
// middle of a 60 s step: the run stops early with a target_exited event
// instead of counting refusals to the end.
func TestEmbeddedPostgresExitStopsTheRun(t *testing.T) {
	t.Parallel()
	skipWithoutPostgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, out := startPlan(t, ctx, pgPlan)
	pid := waitPostmasterReady(t, c)
	time.Sleep(time.Second) // into the measured phase
	killed := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the postmaster %d: %v", pid, err)
	}
	c.wait()
	if took := time.Since(killed); took > 30*time.Second {
		t.Errorf("the run took %s after the postmaster was killed, want it stopped early", took)
	}
	a := loadArtifacts(t, out)["g"]
	if a == nil || len(a.Steps) != 1 {
		t.Fatalf("artifact %+v, want one step\n%s", a, c.stderr.String())
	}
	st := a.Steps[0]
	if !hasEvent(st, artifacts.EventTargetExited) || st.DurationS >= 50 {
		t.Errorf("step: %.1f s, events %+v; want cut short with a target_exited event", st.DurationS, st.Events)
	}
}

// TestSIGINTWhileTargetStarts: an interrupt while a target is still
// getting ready ends the run at once instead of after the ready timeout.
func TestSIGINTWhileTargetStarts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	os.WriteFile(plan, []byte(`version: 1
targets:
  slow: {command: ["sleep", "30"], ready: "tcp://127.0.0.1:1", ready_timeout: 60s}
groups:
  - id: g
    runner: http
    target: slow
    http: {requests: [{url: "http://127.0.0.1:1/"}]}
    load: {concurrency: 1}
    duration: 1s
`), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, benchtuiBinary(t), "run", plan, "-o", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// SIGINT once the target is starting: before, it could come ahead of
	// the signal handler on a busy machine, and kill the run outright.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if slices.Contains(slices.Collect(maps.Values(descendants(t, cmd.Process.Pid))), "sleep 30") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the target did not start within 20 s")
		}
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if took := time.Since(start); took > 10*time.Second || ctx.Err() != nil {
		t.Errorf("run took %s to end after SIGINT during target start", took)
	}
	if code := cmd.ProcessState.ExitCode(); code != exitFail {
		t.Errorf("exit %d, want 1", code)
	}
}
