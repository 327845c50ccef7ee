//go:build unix

package main

import (
	"bufio"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// TestDemoTargetsShareAPortWithReusePort: two demo-targets started with
// --reuseport on one port both listen (without it the second could not),
// and the kernel deals 200 new connections among them: each answers some
// (told apart by their command lines, /debug/pprof/cmdline).
func TestDemoTargetsShareAPortWithReusePort(t *testing.T) {
	t.Parallel()
	addr := testbin.FreeAddr(t)
	for _, life := range []string{"61m", "62m"} {
		startDemoTarget(t, "--http", addr, "--reuseport", "--token-life", life)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	seen := map[string]int{}
	for range 200 {
		resp, err := client.Get("http://" + addr + "/debug/pprof/cmdline")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		switch {
		case strings.Contains(string(b), "61m"):
			seen["61m"]++
		case strings.Contains(string(b), "62m"):
			seen["62m"]++
		}
	}
	if seen["61m"] == 0 || seen["62m"] == 0 || seen["61m"]+seen["62m"] != 200 {
		t.Errorf("200 connections answered by %v, want both processes", seen)
	}
}

// TestDemoTargetSaysItsEventsAtExit: a demo-target that sent 3 events on
// /events says so on stderr when SIGTERM ends it: the server's own count,
// for a client's count to be checked against where its /metrics cannot be
// read (under --reuseport any process may answer).
func TestDemoTargetSaysItsEventsAtExit(t *testing.T) {
	t.Parallel()
	addr := testbin.FreeAddr(t)
	cmd, stderr := startDemoTarget(t, "--http", addr)
	resp, err := http.Get("http://" + addr + "/events?rate=1000&limit=3")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	n := 0
	for line := range strings.Lines(string(body)) {
		if strings.HasPrefix(line, "id: ") {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("read %d events, want 3:\n%s", n, body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !strings.Contains(stderr.String(), "demo-target: /events sent 3 events") {
		t.Errorf("stderr at exit lacks the count of events:\n%s", stderr)
	}
}

// startDemoTarget starts the built benchtui's demo-target with args and
// waits for its "http ADDR" line; the test's end kills it.
func startDemoTarget(t *testing.T, args ...string) (*exec.Cmd, *testbin.Buffer) {
	t.Helper()
	cmd := exec.Command(benchtuiBinary(t), append([]string{"demo-target"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testbin.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || !strings.HasPrefix(line, "http ") {
		t.Fatalf("demo-target %s: %q, %v; stderr:\n%s", strings.Join(args, " "), line, err, stderr)
	}
	return cmd, stderr
}
