package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/reap"
	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

const (
	// strayPlan starts, beside a light load on the demo server, what used
	// to be left running: a target wrapped in a shell (its child outlives
	// the shell), a probe that backgrounds a sleep, a probe that sleeps
	// past its read, and probe, setup, action and teardown commands that
	// leave a sleep running in a session of its own (${LEAVE}: it leaves
	// their process group, so only benchtui's subreaper, sweep and reaper
	// can end it).
	strayPlan = `version: 1
targets:
  demo: {command: ["sh", "-c", "${BIN} demo-target --http ${ADDR}; echo stopped"], ready: "tcp://${ADDR}"}
groups:
  - id: g
    runner: http
    target: demo
    http: {requests: [{url: "http://${ADDR}/ping"}]}
    load: {rate: 50, max_in_flight: 4}
    duration: ${DURATION}
    probes:
      - {name: bg, interval: 200ms, command: ["sh", "-c", "sleep 303 >/dev/null 2>&1 & echo 1"]}
      - {name: slow, interval: 5s, timeout: 10s, command: ["sleep", "311"]}
      - {name: away, interval: 10s, command: ["${LEAVE}", "315"]}
    setup:
      - {exec: ["${LEAVE}", "312"]}
    actions:
      - {at: 200ms, exec: ["${LEAVE}", "313"]}
    teardown:
      - {exec: ["${LEAVE}", "314"]}
`
	// leaveScript runs sleep N in a new session, left running, and prints
	// 1 once that sleep has left the script's process group.
	leaveScript = `#!/bin/sh
flag="$0.$1.$$"
setsid -f sh -c 'touch "$0"; exec sleep "$1"' "$flag" "$1" >/dev/null 2>&1
while [ ! -e "$flag" ]; do sleep 0.02; done
echo 1
`
	// shutdownStrayPlan's target ignores SIGTERM and leaves a child
	// behind when the shutdown runner's signal ends it.
	shutdownStrayPlan = `version: 1
targets:
  demo: {command: ["sh", "-c", "trap '' TERM; sleep 322 & exec ${BIN} demo-target --http ${ADDR}"], ready: "tcp://${ADDR}"}
groups:
  - id: g
    runner: shutdown
    target: demo
    http: {requests: [{url: "http://${ADDR}/ping"}]}
    load: {concurrency: 1}
    shutdown: {signal: SIGTERM, after: ${AFTER}, grace: 2s}
`
)

// exitModes are the ways a run ends: its own end, or a signal to benchtui.
var exitModes = map[string]syscall.Signal{"end": 0, "TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP, "KILL": syscall.SIGKILL}

// TestNoProcessLeftInAnyExitMode: whatever benchtui started (a wrapped
// target and the shell's child, probes, setup, action and teardown
// commands and what they put in the background, even in a session of its
// own) is gone once benchtui has ended, normally or by SIGTERM, SIGINT,
// SIGHUP or SIGKILL: no process carries the test's marker then.
func TestNoProcessLeftInAnyExitMode(t *testing.T) {
	t.Parallel()
	for mode, sig := range exitModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			duration := map[bool]string{true: "4s", false: "60s"}[sig == 0] // 4 s: time to see them all
			c, marker := startMarkedPlan(t, strings.ReplaceAll(strayPlan, "${DURATION}", duration))
			procs := waitMarked(t, c, marker, `demo-target`, `^sleep 311$`, `^sleep 312$`, `^sleep 313$`, `^sleep 315$`)
			assertAdopted(t, c, procs, "sleep 312")
			endRun(t, c, sig)
			assertNoneMarked(t, marker)
		})
	}
}

// TestShutdownRunnerLeavesNoChildOfTheTarget: the shutdown runner's
// target ignores SIGTERM and backgrounds a child; neither outlives the
// run, ended normally or by SIGKILL.
func TestShutdownRunnerLeavesNoChildOfTheTarget(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"end", "KILL"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			after := map[bool]string{true: "2s", false: "60s"}[mode == "end"]
			c, marker := startMarkedPlan(t, strings.ReplaceAll(shutdownStrayPlan, "${AFTER}", after))
			waitMarked(t, c, marker, `demo-target`, `^sleep 322$`)
			endRun(t, c, exitModes[mode])
			assertNoneMarked(t, marker)
		})
	}
}

// startMarkedPlan runs plan (see startPlan) with the binary's environment
// holding a marker unique to the test, which benchtui extends for all it
// starts; it returns the run and the marker. Whatever carries the marker
// when the test ends is killed, by PID.
func startMarkedPlan(t *testing.T, plan string) (*child, string) {
	t.Helper()
	b := make([]byte, 8)
	rand.Read(b)
	marker := "test-" + hex.EncodeToString(b)
	t.Cleanup(func() {
		for pid := range markedProcs(t, marker) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	dir := t.TempDir()
	leave := filepath.Join(dir, "leave.sh")
	if err := os.WriteFile(leave, []byte(leaveScript), 0o755); err != nil {
		t.Fatal(err)
	}
	plan = strings.NewReplacer("${BIN}", benchtuiBinary(t), "${ADDR}", testbin.FreeAddr(t), "${LEAVE}", leave).Replace(plan)
	path := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	c := &child{cmd: exec.CommandContext(ctx, benchtuiBinary(t), "run", path, "-o", dir), stderr: &testbin.Buffer{}}
	c.cmd.Stderr = c.stderr
	c.cmd.Env = append(os.Environ(), reap.MarkerVar+"="+marker)
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			c.cmd.Process.Kill()
			c.cmd.Wait()
		}
	})
	return c, marker
}

// waitMarked polls until, for each pattern, a process carrying marker
// has a command line that matches it, and returns the marked processes.
func waitMarked(t *testing.T, c *child, marker string, patterns ...string) map[int]string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		procs := markedProcs(t, marker)
		missing := slicesMissing(procs, patterns)
		if len(missing) == 0 {
			return procs
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s no marked process matches %q: %v\n%s", missing, procs, c.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// assertAdopted checks that the process of procs running line, whose
// parent has exited, is a child of benchtui (its subreaper), not of init.
func assertAdopted(t *testing.T, c *child, procs map[int]string, line string) {
	t.Helper()
	for _, p := range testbin.Procs(t) {
		if procs[p.PID] == line && p.PPID != c.cmd.Process.Pid {
			t.Errorf("%q (pid %d) has parent %d, want benchtui (%d), its subreaper", line, p.PID, p.PPID, c.cmd.Process.Pid)
		}
	}
}

// slicesMissing lists the patterns no command line of procs matches.
func slicesMissing(procs map[int]string, patterns []string) []string {
	var missing []string
	for _, p := range patterns {
		re, found := regexp.MustCompile(p), false
		for _, line := range procs {
			found = found || re.MatchString(line)
		}
		if !found {
			missing = append(missing, p)
		}
	}
	return missing
}

// endRun lets the run end (sig 0) or sends sig to benchtui, and waits
// for its exit.
func endRun(t *testing.T, c *child, sig syscall.Signal) {
	t.Helper()
	if sig != 0 {
		if err := c.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
	}
	c.wait()
	if c.cmd.ProcessState == nil || (sig == 0 && !c.cmd.ProcessState.Exited()) {
		t.Fatalf("benchtui: %v\n%s", c.cmd.ProcessState, c.stderr.String())
	}
}

// assertNoneMarked polls (up to 15 s: the machine may be busy) until no
// process carries marker.
func assertNoneMarked(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		left := markedProcs(t, marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d processes carry the run's marker 15 s after benchtui ended: %v", len(left), left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// markedProcs lists the running processes of this user whose environment
// carries marker (reap.MarkerVar set to it, or to a value it begins, as
// benchtui extends it), with their command lines.
func markedProcs(t *testing.T, marker string) map[int]string {
	out := map[int]string{}
	for _, p := range testbin.Procs(t) {
		if p.State == 'Z' || !ownProcess(p.PID) {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.PID))
		if err != nil {
			continue
		}
		for kv := range bytes.SplitSeq(env, []byte{0}) {
			v, ok := bytes.CutPrefix(kv, []byte(reap.MarkerVar+"="))
			if ok && (string(v) == marker || bytes.HasPrefix(v, []byte(marker+"/"))) {
				out[p.PID] = cmdline(p.PID)
			}
		}
	}
	return out
}

// ownProcess reports whether pid belongs to this test's user.
func ownProcess(pid int) bool {
	st, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	if err != nil {
		return false
	}
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(s.Uid) == os.Getuid()
}
