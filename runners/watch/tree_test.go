//go:build linux

package watch

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestSampleTreeCountsChildren: a shell with three sleeping children sums
// four processes' threads, and more memory than the shell alone.
func TestSampleTreeCountsChildren(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & sleep 30 & sleep 30 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }()
	// The children show once forked, and their memory once they have
	// exec'd sleep (an exec in progress has none): poll up to 5 s.
	var one, tree Sample
	deadline := time.Now().Add(5 * time.Second)
	for {
		var err error
		if one, err = SampleProc(cmd.Process.Pid); err != nil {
			t.Fatal(err)
		}
		if tree, err = SampleTree(cmd.Process.Pid); err != nil {
			t.Fatal(err)
		}
		if (tree.Threads == 4 && tree.RSSBytes > one.RSSBytes) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if tree.Threads != 4 || tree.RSSBytes <= one.RSSBytes || tree.FDs < one.FDs {
		t.Errorf("tree %+v, process alone %+v: want 4 threads and more memory", tree, one)
	}
}
