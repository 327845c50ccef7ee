//go:build linux

package watch

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// endThreads ends n OS threads of the process: a goroutine that exits
// while locked to its thread takes the thread with it.
func endThreads(n int) {
	for range n {
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(done)
		}()
		<-done
		time.Sleep(time.Millisecond)
	}
}

// TestTiedChildOutlivesEndedThreads: the parent-death signal follows the
// forking thread, so threads of benchtui ending (a locked goroutine that
// returns) must not kill a tied child; only its release may end the
// starter's thread.
func TestTiedChildOutlivesEndedThreads(t *testing.T) {
	for range 3 {
		cmd := exec.Command("sleep", "30")
		release, err := StartTied(cmd)
		if err != nil {
			t.Fatal(err)
		}
		endThreads(20)
		// SIGTERM, not the parent-death SIGKILL: the status tells which
		// one ended the child.
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		release()
		if got := cmd.ProcessState.String(); got != "signal: terminated" {
			t.Fatalf("tied child: %s, want alive until the test's SIGTERM", got)
		}
	}
}
