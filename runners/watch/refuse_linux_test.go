package watch

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// An attached target that turns out to be pid 1, this process or its
// parent (a pidfile can name any of them), or a cgroup that holds one,
// is never signalled: Signal refuses, saying why. The signal is 0 (it
// only checks that the process exists), so a refusal that fails does no
// harm; the test's own child is signalled as before.
func TestSignalRefusesInitSelfAndParent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for pid, want := range map[int]string{1: "pid 1 is init", os.Getpid(): "is benchtui itself", os.Getppid(): "is benchtui's own parent"} {
		pidFile := filepath.Join(dir, strconv.Itoa(pid)+".pid")
		os.WriteFile(pidFile, []byte(strconv.Itoa(pid)+"\n"), 0o644)
		p, err := Start(t.Context(), Config{Name: "t", PIDFile: pidFile})
		if err != nil {
			t.Fatalf("attaching to %d: %v", pid, err)
		}
		err = p.Signal(syscall.Signal(0))
		p.Stop()
		if err == nil || !strings.Contains(err.Error(), "refused: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("signalling pid %d: %v, want refused: …%s", pid, err, want)
		}
	}
	cg := fakeCgroup(t, map[string]string{"cgroup.procs": strconv.Itoa(os.Getppid()) + "\n", "memory.current": "1\n", "memory.stat": "anon 1\n", "cpu.stat": "usage_usec 1\n"})
	p, err := Start(t.Context(), Config{Name: "cg", Cgroup: cg})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if err := p.Signal(syscall.Signal(0)); err == nil || !strings.Contains(err.Error(), "own parent") {
		t.Errorf("signalling a cgroup that holds the parent: %v", err)
	}
	child := execLeaky(t, "-print", "")
	q, err := Start(t.Context(), Config{Name: "child", PID: child.Process.Pid})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	if err := q.Signal(syscall.Signal(0)); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("signalling the test's own child: %v", err)
	}
}
