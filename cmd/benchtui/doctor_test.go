package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// redisFinding is doctor's finding on an embedded Redis on this machine.
func redisFinding() string {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return "error group kv-embedded: embedded Redis: redis-server not found"
	}
	return "ok    group kv-embedded: embedded Redis from "
}

func TestDoctorFindsProblemsAndHidesSecrets(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("checks the fd limit and finds sh: Unix only")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	plan := filepath.Join(t.TempDir(), "d.yaml")
	os.WriteFile(plan, []byte(`version: 1
targets:
  gone: {command: ["/nonexistent/server"]}
  sh: {command: ["sh", "-c", "sleep 1"]}
  box: {container: web, runtime: nerdctl, log: {patterns: {warn: WARN}, command: [nerdctl, logs, -f, web]}}
groups:
  - id: pg
    runner: postgres
    postgres: {dsn: "postgres://u:hunter2@`+closed+`/db", statements: [{sql: "SELECT 1"}]}
    load: {concurrency: 100000}
    duration: 1s
  - id: kv
    runner: redis
    redis: {addr: "`+closed+`", commands: [{cmd: [PING]}]}
    load: {concurrency: 1}
    duration: 1s
  - id: kv-embedded
    runner: redis
    redis: {addr: embedded, commands: [{cmd: [PING]}]}
    load: {concurrency: 1}
    duration: 1s
`), 0o644)
	code, stdout, _ := runCmd(t, cmdDoctor, plan)
	if code != exitFail {
		t.Errorf("exit %d, want 1", code)
	}
	fdFinding := "error open files: hard limit" // 100,000 connections need more than most hosts allow
	if _, hard, err := fdLimit(); err == nil && hard > 100_000*2 {
		fdFinding = "open files: "
	}
	for _, want := range []string{fdFinding, "error target gone: command \"/nonexistent/server\" not found",
		"ok    target sh: command sh found", "error group pg: Postgres at " + closed + " unreachable",
		"error group kv: Redis at " + closed + " unreachable", redisFinding()} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := exec.LookPath("nerdctl"); err != nil && !strings.Contains(stdout, "error target box: runtime nerdctl not found in PATH") {
		t.Errorf("doctor output lacks the container target's missing runtime:\n%s", stdout)
	}
	if strings.Contains(stdout, "hunter2") {
		t.Errorf("doctor printed a password:\n%s", stdout)
	}
}

// TestDoctorChecksCgroupFiles: a cgroup target's folder is checked by the
// doctor as attaching it will be (the plan checks its syntax only): a
// folder without the files benchtui reads is an error naming the file,
// and a missing folder an error naming the folder.
func TestDoctorChecksCgroupFiles(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("cgroups are Linux only")
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(dir, "gone")
	plan := filepath.Join(dir, "d.yaml")
	os.WriteFile(plan, []byte(`version: 1
targets:
  plain: {cgroup: `+plain+`}
  gone: {cgroup: `+gone+`}
groups:
  - id: g
    runner: http
    target: plain
    http: {requests: [{url: "http://127.0.0.1:1/"}]}
    load: {concurrency: 1}
    duration: 1s
`), 0o644)
	code, stdout, stderr := runCmd(t, cmdDoctor, plan)
	if code != exitFail {
		t.Errorf("exit %d, want 1 (stderr %s)", code, stderr)
	}
	for _, want := range []string{"error target plain: cgroup " + plain + ": ", "memory.usage_in_bytes",
		"error target gone: cgroup " + gone + ": ", "no such file"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestDoctorUnknownFlag: doctor has no flags, so `doctor --bogus` is an
// unknown flag (exit 2), not a plan named --bogus to read.
func TestDoctorUnknownFlag(t *testing.T) {
	code, stdout, stderr := runMain(t, "doctor", "--bogus")
	if code != exitUsage || !strings.Contains(stderr, "flag provided but not defined: -bogus") ||
		strings.Contains(stderr, "reading plan") || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q: want 2 and an unknown flag", code, stdout, stderr)
	}
}
