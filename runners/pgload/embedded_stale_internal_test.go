//go:build linux

package pgload

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest/testbin"

	"github.com/benchtui/benchtui/runners/reap"
)

// TestCleanStaleRemovesOnlyClustersOfDeadOwners: a folder whose owner is
// gone is removed, with the live "postmaster" its pid file names when that
// process's command line names the folder; folders of live owners, of other
// naming schemes, and with a live process that is not their postmaster
// (a reused pid) are left, and that process too.
func TestCleanStaleRemovesOnlyClustersOfDeadOwners(t *testing.T) {
	root, dead := t.TempDir(), testbin.DeadPID(t)
	mk := func(name string) string {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	stale := mk(ownerPrefix(dead) + "1")
	mine := mk(ownerPrefix(os.Getpid()) + "2")
	live := mk(ownerPrefix(1) + "3")
	other := mk(clusterPrefix + "123456") // an older benchtui's name: no owner
	withServer := mk(ownerPrefix(dead) + "4")
	server := startFake(t, filepath.Join(withServer, "data"), filepath.Join(withServer, "data"))
	withStranger := mk(ownerPrefix(dead) + "5")
	stranger := startFake(t, filepath.Join(withStranger, "data"), "elsewhere")

	cleanStale(root)
	for dir, want := range map[string]bool{stale: false, mine: true, live: true, other: true, withServer: false, withStranger: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s: exists=%v, want %v", filepath.Base(dir), err == nil, want)
		}
	}
	if !waitGone(server.Process.Pid, 5*time.Second) {
		t.Errorf("the stale postmaster %d still runs", server.Process.Pid)
	}
	if !reap.Alive(stranger.Process.Pid) {
		t.Errorf("a process that is not the folder's postmaster was killed")
	}
}

// startFake starts a process that waits on its stdin, with arg on its
// command line, and writes its pid as the postmaster.pid of dataDir.
func startFake(t *testing.T, dataDir, arg string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", "read x", "fake-postgres", arg)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	pidFile := filepath.Join(dataDir, "postmaster.pid")
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return cmd
}
