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
	deadline := time.Now().Add(5 * time.Second)
	for len(descendants(cmd.Process.Pid)) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	one, err := SampleProc(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := SampleTree(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Threads != 4 || tree.RSSBytes <= one.RSSBytes || tree.FDs < one.FDs {
		t.Errorf("tree %+v, process alone %+v: want 4 threads and more memory", tree, one)
	}
}
