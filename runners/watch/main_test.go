//go:build linux

package watch

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// leakyBin is the helper server of testdata/leaky, built once by TestMain.
var leakyBin string

func TestMain(m *testing.M) {
	leakyBin = testbin.MustBuild("./testdata/leaky")
	goleak.VerifyTestMain(m, goleak.Cleanup(testbin.Exit))
}

// startLeaky starts the helper with args through Start, and stops it when
// the test ends.
func startLeaky(t *testing.T, cfg Config, args ...string) *Process {
	t.Helper()
	cfg.Command = append([]string{leakyBin}, args...)
	if cfg.Name == "" {
		cfg.Name = "leaky"
	}
	if cfg.LogDir == "" {
		cfg.LogDir = t.TempDir()
	}
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = 10 * time.Second
	}
	return mustStart(t, cfg)
}

// mustStart starts (or attaches to) cfg's target and stops it when the
// test ends.
func mustStart(t *testing.T, cfg Config) *Process {
	t.Helper()
	p, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return p
}

// execLeaky starts the helper outside Start (a process to attach to); it
// is killed and reaped when the test ends.
func execLeaky(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(leakyBin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting helper: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// freeAddr returns a loopback address with a port free at the time.
func freeAddr(t *testing.T) string { return testbin.FreeAddr(t) }

// waitFor polls cond every 20ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

// signalExit sends sig to p and checks it exits with status want.
func signalExit(t *testing.T, p *Process, sig syscall.Signal, want string) {
	t.Helper()
	if err := p.Signal(sig); err != nil {
		t.Fatal(err)
	}
	waitExited(t, p, 5*time.Second)
	if got := p.ExitStatus(); got != want {
		t.Errorf("ExitStatus %q after %v, want %q", got, sig, want)
	}
}

// waitPIDFile waits until the helper has written its pidfile, which it does
// once its runtime is up.
func waitPIDFile(t *testing.T, path string) int {
	t.Helper()
	var pid int
	if !waitFor(5*time.Second, func() bool {
		var err error
		pid, err = ReadPIDFile(path)
		return err == nil
	}) {
		t.Fatalf("helper wrote no pidfile %s", path)
	}
	return pid
}

// waitExited fails the test unless p exits within d.
func waitExited(t *testing.T, p *Process, d time.Duration) {
	t.Helper()
	select {
	case <-p.Exited():
	case <-time.After(d):
		t.Fatalf("target did not exit within %s", d)
	}
}
