//go:build unix

package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os/exec"
	"strings"
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
		ctx, cancel := context.WithCancel(context.Background())
		cmd := exec.CommandContext(ctx, benchtuiBinary(t), "demo-target", "--http", addr, "--reuseport", "--token-life", life)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		stderr := &testbin.Buffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cancel(); _ = cmd.Wait() })
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "http ") {
			t.Fatalf("demo-target --token-life %s: %q, %v; stderr:\n%s", life, line, err, stderr)
		}
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
