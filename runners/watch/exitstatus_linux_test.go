//go:build linux

package watch

import (
	"strings"
	"testing"
	"time"
)

// TestAttachedExitStatus: an attached process that exits with a code
// shows it while its parent (here the test) has not reaped it; once
// reaped, its status is unknown and says so.
func TestAttachedExitStatus(t *testing.T) {
	t.Parallel()
	cmd := execLeaky(t, "-print", "", "-exit", "3", "-exit-after", "300ms")
	p := attachTo(t, Config{Name: "db", PID: cmd.Process.Pid})
	waitExited(t, p, 5*time.Second)
	if got, want := p.ExitStatus(), "exit 3 (attached; read from /proc while a zombie)"; got != want {
		t.Errorf("ExitStatus %q, want %q", got, want)
	}
	_ = cmd.Wait()
	if got := attachedExitStatus(cmd.Process.Pid); got != StatusUnknown {
		t.Errorf("status of a reaped process: %q, want %q", got, StatusUnknown)
	}
	if !strings.Contains(StatusUnknown, "status unknown") {
		t.Errorf("StatusUnknown %q does not say so", StatusUnknown)
	}
}

// TestAttachedExitPidfd: with a pidfd the exit is seen at once, well
// before the (long) periodic check would see it.
func TestAttachedExitPidfd(t *testing.T) {
	t.Parallel()
	cmd := execLeaky(t, "-print", "")
	quit := make(chan struct{})
	exited, release := pidfdWatch(cmd.Process.Pid, quit)
	if exited == nil {
		close(quit)
		release()
		t.Skip("no pidfd here (kernel before 5.3 or a seccomp filter)")
	}
	p := mustStart(t, Config{Name: "slow", PID: cmd.Process.Pid, Sample: time.Hour})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("pidfd did not tell of the exit")
	}
	close(quit)
	release()
	waitExited(t, p, 5*time.Second)
	if got := p.ExitStatus(); !strings.HasPrefix(got, "signal killed") {
		t.Errorf("ExitStatus %q, want signal killed", got)
	}
}
