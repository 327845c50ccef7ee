//go:build linux

package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadyHTTP(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	startLeaky(t, Config{Ready: "http://" + addr + "/health"}, "-http", addr, "-ready-after", "300ms", "-print", "")
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("GET after ready: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

func TestReadyTCP(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	startLeaky(t, Config{Ready: "tcp://" + addr}, "-listen", addr, "-ready-after", "300ms", "-print", "")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial after ready: %v", err)
	}
	c.Close()
}

func TestReadyStdout(t *testing.T) {
	t.Parallel()
	p := startLeaky(t, Config{Name: "api/v2", Ready: `stdout:/listening on :\d+$/`},
		"-lines", "3", "-ready-after", "300ms", "-print", "server listening on :8080")
	b, err := os.ReadFile(p.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "server listening on :8080\n") {
		t.Fatalf("log %q lacks the ready line", b)
	}
	if filepath.Base(p.LogPath()) != "api_v2.log" {
		t.Errorf("log path %s, want <LogDir>/api_v2.log", p.LogPath())
	}
}

func TestNeverReadyShowsLogAndStops(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	_, err := Start(context.Background(), Config{
		Name: "sleepy", Command: []string{leakyBin, "-lines", "15", "-print", "", "-pid-file", pidFile},
		Ready: "tcp://" + freeAddr(t), ReadyTimeout: 700 * time.Millisecond, LogDir: dir,
	})
	if err == nil {
		t.Fatal("Start of a target that never listens succeeded")
	}
	msg := err.Error()
	for _, want := range []string{`"sleepy"`, "not ready", "line 6\n", "line 15"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "line 5\n") {
		t.Errorf("error shows more than the last 10 lines:\n%s", msg)
	}
	pid, err := ReadPIDFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	if st := procState(pid); st != "" {
		t.Errorf("target %d left in state %s after a failed start", pid, st)
	}
}

func TestExitBeforeReady(t *testing.T) {
	t.Parallel()
	_, err := Start(context.Background(), Config{
		Name: "quitter", Command: []string{leakyBin, "-lines", "2", "-print", "", "-exit", "3"},
		Ready: "stdout:/never/", LogDir: t.TempDir(),
	})
	if err == nil {
		t.Fatal("Start of a target that exits succeeded")
	}
	for _, want := range []string{`"quitter"`, "exit 3", "line 2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestStartCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := Start(ctx, Config{Command: []string{leakyBin, "-print", ""}, Ready: "stdout:/never/", LogDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("Start with an ending ctx: %v", err)
	}
}

func TestKilledMidWatch(t *testing.T) {
	t.Parallel()
	p := startLeaky(t, Config{Ready: "stdout:/ready/"})
	s := p.Sampler()
	if _, err := s.Sample(); err != nil {
		t.Fatal(err)
	}
	// By PID, not through p: the target dies of something else.
	if err := syscall.Kill(p.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitExited(t, p, 5*time.Second)
	if got := p.ExitStatus(); got != "signal killed" {
		t.Errorf("ExitStatus %q, want signal killed", got)
	}
	if _, err := s.Sample(); err == nil {
		t.Error("sampling a reaped target succeeded")
	}
}

func TestExitStatusCode(t *testing.T) {
	t.Parallel()
	p := startLeaky(t, Config{}, "-print", "", "-exit", "3", "-exit-after", "100ms")
	waitExited(t, p, 5*time.Second)
	if got := p.ExitStatus(); got != "exit 3" {
		t.Errorf("ExitStatus %q, want exit 3", got)
	}
}

func TestStopLeavesNoZombie(t *testing.T) {
	t.Parallel()
	p := startLeaky(t, Config{Ready: "stdout:/ready/"})
	if p.ExitStatus() != "" {
		t.Fatalf("ExitStatus %q while running", p.ExitStatus())
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if st := procState(p.PID()); st != "" && st != "Z" {
		t.Fatalf("target in state %s after Stop", st)
	} else if st == "Z" {
		t.Fatal("target is a zombie after Stop")
	}
	if got := p.ExitStatus(); got != "signal terminated" {
		t.Errorf("ExitStatus %q, want signal terminated", got)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestStopEscalatesAndKillsGroup(t *testing.T) {
	t.Parallel()
	p := startLeaky(t, Config{Ready: `stdout:/child \d+/`, StopGrace: 300 * time.Millisecond}, "-ignore-term", "-child")
	b, err := os.ReadFile(p.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`child (\d+)`).FindSubmatch(b)
	child, _ := strconv.Atoi(string(m[1]))
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := p.ExitStatus(); got != "signal killed" {
		t.Errorf("ExitStatus %q, want signal killed (SIGTERM is ignored)", got)
	}
	// The child is reparented; whoever reaps it may take a moment.
	if !waitFor(3*time.Second, func() bool { st := procState(child); return st == "" || st == "Z" }) {
		t.Errorf("child %d of the target still runs after Stop", child)
	}
}

// TestStopAfterExitKillsWhatTheGroupLeft: a target that exited on its own
// (the shutdown runner's signal, a crash) left a child in its process
// group; Stop ends it, though the target needs no stopping.
func TestStopAfterExitKillsWhatTheGroupLeft(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child")
	p := mustStart(t, Config{Name: "leaver", LogDir: dir,
		Command: []string{"sh", "-c", "trap '' TERM; sleep 30 >/dev/null 2>&1 & echo $! > " + pidFile}})
	waitExited(t, p, 5*time.Second)
	child, err := ReadPIDFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	if st := procState(child); st == "" || st == "Z" {
		t.Fatalf("the target's child %d is not running (%q) before Stop", child, st)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(3*time.Second, func() bool { st := procState(child); return st == "" || st == "Z" }) {
		t.Errorf("child %d of the exited target still runs after Stop", child)
	}
}

func TestSignalAndEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "env.sh")
	body := "#!/bin/sh\necho \"$BENCHTUI_TEST_VAR $HOME\"\nexec sleep 30\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := startRetryingBusy(t, Config{
		Name: "env", Command: []string{"./env.sh"}, Dir: dir, LogDir: dir,
		Env: map[string]string{"BENCHTUI_TEST_VAR": "merged"}, Ready: "stdout:/^merged /",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if b, _ := os.ReadFile(p.LogPath()); !strings.Contains(string(b), "merged "+os.Getenv("HOME")) {
		t.Errorf("env not merged with os.Environ: log %q", b)
	}
	signalExit(t, p, syscall.SIGUSR1, "signal user defined signal 1")
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	bad := []Config{
		{},
		{Command: []string{"x"}, PID: 1},
		{PID: 1, Ready: "stdout:/x/"},
		{Command: []string{"x"}, Ready: "ftp://x"},
		{Command: []string{"x"}, Ready: "tcp://nohost"},
		{Command: []string{"x"}, Ready: "stdout:/(/"},
		{Command: []string{"x"}, StopGrace: -time.Second},
	}
	for i, c := range bad {
		if errs := c.Validate(); len(errs) == 0 {
			t.Errorf("%d: %+v validated", i, c)
		}
	}
	good := Config{Command: []string{"x"}, Ready: "https://127.0.0.1:1/ready"}
	if errs := good.Validate(); len(errs) != 0 {
		t.Errorf("valid config: %v", errs)
	}
	if _, err := Start(context.Background(), Config{Name: "none"}); err == nil || !strings.Contains(err.Error(), "exactly one") {
		t.Errorf("Start of an empty config: %v", err)
	}
	if _, err := Start(context.Background(), Config{Command: []string{"/nonexistent/bin"}, LogDir: t.TempDir()}); err == nil {
		t.Error("Start of a missing binary succeeded")
	} else {
		fmt.Fprint(io.Discard, err)
	}
}

// startRetryingBusy starts a target whose command is a script the test has
// just written. A parallel test's fork may hold the script's write fd open
// for an instant (until its exec closes it), and exec then fails with
// ETXTBSY: a few retries wait that out.
func startRetryingBusy(t *testing.T, c Config) (*Process, error) {
	t.Helper()
	for i := 0; ; i++ {
		p, err := Start(context.Background(), c)
		if err == nil || !errors.Is(err, syscall.ETXTBSY) || i == 20 {
			return p, err
		}
		time.Sleep(25 * time.Millisecond)
	}
}
