package reap

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var initOnce sync.Once

// initTest makes the test process what benchtui is after Init: marked, a
// child subreaper reaping its orphans.
func initTest(t *testing.T) {
	t.Helper()
	initOnce.Do(func() {
		if err := Init(); err != nil {
			t.Fatal(err)
		}
	})
}

// orphan runs script (sh) in a group of its own, as benchtui starts
// commands, after Prepare, and returns the pid it wrote to its pidfile
// once the script has exited: a process left to this process to adopt.
func orphan(t *testing.T, script string) int {
	t.Helper()
	Prepare()
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("sh", "-c", script+" echo $! > "+pidFile)
	cmd.SysProcAttr = OwnGroup(nil)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitGone polls (up to 5 s) until pid is gone from /proc: reaped, not a
// zombie.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, ok := readStat(pid); !ok {
			return
		}
		if time.Now().After(deadline) {
			p, _ := readStat(pid)
			t.Fatalf("%s %d still there after 5 s (state %c)", what, pid, p.state)
		}
	}
}

// A grandchild whose parent exited becomes this process's child (the
// subreaper) and, once it exits, is reaped: no zombie is left.
func TestOrphanIsAdoptedAndReaped(t *testing.T) {
	initTest(t)
	pid := orphan(t, "sleep 0.3 & ")
	if p, ok := readStat(pid); !ok || p.ppid != os.Getpid() {
		t.Fatalf("orphan %d: %+v, want a child of the test process %d", pid, p, os.Getpid())
	}
	waitGone(t, pid, "exited orphan")
}

// Sweep ends a marked process that left its process group and session,
// and leaves the reaper running.
func TestSweepEndsWhatLeftTheGroup(t *testing.T) {
	initTest(t)
	pid := orphan(t, "setsid sleep 30 & sleep 0.1;")
	if got := markerOf(pid); !Matches(got) {
		t.Fatalf("the orphan's marker %q is not the test's %q", got, Marker())
	}
	if err := Sweep(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid, "swept orphan")
	_, reaperPID, err := reaperState()
	if err != nil || reaperPID == 0 || syscall.Kill(reaperPID, 0) != nil {
		t.Errorf("reaper %d (%v) not running after the sweep", reaperPID, err)
	}
}
