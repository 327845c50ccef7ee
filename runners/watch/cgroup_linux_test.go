package watch

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// A cgroup folder without a file benchtui needs is an error naming the
// file, at attach and at every sample, never a target measured as zeros.
func TestCgroupMissingFile(t *testing.T) {
	t.Parallel()
	procs := strconv.Itoa(os.Getpid()) + "\n"
	// A process gone: none to say where its cpuacct cgroup is (this
	// test's own is in one, on a v1 machine).
	gone := strconv.Itoa(testbin.DeadPID(t)) + "\n"
	for _, tc := range []struct {
		name    string
		files   map[string]string
		missing string
	}{
		{"v2 no cpu.stat", map[string]string{"cgroup.procs": procs, "memory.current": "1\n", "memory.stat": "inactive_file 0\n"}, "cpu.stat"},
		{"v2 no memory.stat", map[string]string{"cgroup.procs": procs, "memory.current": "1\n", "cpu.stat": "usage_usec 1\n"}, "memory.stat"},
		{"v1 no cpuacct.usage", map[string]string{"cgroup.procs": gone, "memory.usage_in_bytes": "1\n", "memory.stat": "total_inactive_file 0\n"}, "cpuacct.usage"},
		{"plain folder", map[string]string{"cgroup.procs": procs}, "memory.usage_in_bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fakeCgroup(t, tc.files)
			err := CheckCgroup(dir)
			if err == nil || !strings.Contains(err.Error(), tc.missing) {
				t.Errorf("CheckCgroup: %v, want an error naming %s", err, tc.missing)
			}
			if _, err := SampleCgroup(dir); err == nil || !strings.Contains(err.Error(), tc.missing) {
				t.Errorf("SampleCgroup: %v, want an error naming %s", err, tc.missing)
			}
			_, err = Start(context.Background(), Config{Cgroup: dir})
			if err == nil || !strings.Contains(err.Error(), tc.missing) {
				t.Errorf("Start: %v, want an error naming %s", err, tc.missing)
			}
		})
	}
}

// realCgroup makes a cgroup folder of a test's own and returns what
// SampleCgroup is given (v2: the folder; v1: its memory hierarchy folder,
// with a cpuacct folder of the same path), and the folders to write a pid
// to. It skips the test when it cannot make one.
func realCgroup(t *testing.T) (dir string, joins []string) {
	t.Helper()
	const base = "/sys/fs/cgroup"
	name := "benchtui-test-" + strconv.Itoa(os.Getpid()) + "-" + strings.ReplaceAll(t.Name(), "/", "_")
	var dirs []string
	if b, err := os.ReadFile(filepath.Join(base, "cgroup.controllers")); err == nil {
		if !strings.Contains(string(b), "memory") {
			t.Skip("cgroup v2 without the memory controller")
		}
		dirs = []string{filepath.Join(base, name)}
	} else if exists(filepath.Join(base, "memory", "cgroup.sane_behavior")) && exists(filepath.Join(base, "cpuacct")) {
		dirs = []string{filepath.Join(base, "memory", name), filepath.Join(base, "cpuacct", name)}
	} else {
		t.Skip("no cgroup v2 with memory, nor v1 memory and cpuacct hierarchies, at " + base)
	}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Skipf("cannot make a cgroup folder (not root, or read-only cgroupfs): %v", err)
		}
		t.Cleanup(func() { rmdirCgroup(t, d) })
	}
	return dirs[0], dirs
}

// rmdirCgroup removes a cgroup folder once its processes are gone (they
// leave cgroup.procs a moment after they are reaped).
func rmdirCgroup(t *testing.T, dir string) {
	var err error
	for range 50 {
		if err = os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("removing cgroup %s: %v", dir, err)
}

// A child in a real cgroup shows the working set the kernel's files give
// at the same moment (within 10%), and its CPU time grows.
func TestRealCgroupWorkingSet(t *testing.T) {
	dir, joins := realCgroup(t)
	// 64 MiB of anonymous memory held, and a busy CPU loop.
	cmd := exec.Command("sh", "-c", `exec python3 -c 'import time
b = bytearray(64 << 20)
for i in range(0, len(b), 4096): b[i] = 1
print("ready", flush=True)
while True: pass'`)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: the test's child holds memory with it")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startInCgroup(t, cmd, joins)
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil {
		t.Fatalf("waiting for the child: %v", err)
	}
	p := attachTo(t, Config{Cgroup: dir})
	s := p.Sampler()
	first, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	before := kernelCPUSeconds(t, joins[len(joins)-1])
	got, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	after := kernelCPUSeconds(t, joins[len(joins)-1])
	truth := kernelWorkingSet(t, dir)
	if got.WorkingSetBytes < 60<<20 || diffRatio(float64(got.WorkingSetBytes), float64(truth)) > 0.10 {
		t.Errorf("working set %d MiB, kernel files say %d MiB", got.WorkingSetBytes>>20, truth>>20)
	}
	// A spinning child's CPU time grows (by however little a loaded
	// machine gives it: 0.015 cores seen at load 10) and is the kernel's,
	// read just before and after the sample.
	if got.CPUSeconds <= first.CPUSeconds || got.CPUSeconds < before || got.CPUSeconds > after {
		t.Errorf("CPU %v s then %v s (%.3f cores), the kernel's %v to %v s: a busy child not seen", first.CPUSeconds, got.CPUSeconds, got.CPUCores, before, after)
	}
	if got.MemPeakBytes != 0 && got.MemPeakBytes < got.WorkingSetBytes {
		t.Errorf("kernel peak %d below the working set %d", got.MemPeakBytes, got.WorkingSetBytes)
	}
}

// startInCgroup starts cmd, moves it into the cgroup folders joins (what
// realCgroup returns), and kills it when the test ends, before the
// folders are removed.
func startInCgroup(t *testing.T, cmd *exec.Cmd, joins []string) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // runs before the rmdirs
	for _, d := range joins {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
			t.Fatalf("joining %s: %v", d, err)
		}
	}
}

// kernelWorkingSet reads the working set the kubelet's way, independently
// of SampleCgroup's reader.
func kernelWorkingSet(t *testing.T, dir string) int64 {
	t.Helper()
	usage, stat := "memory.current", "inactive_file"
	if !exists(filepath.Join(dir, usage)) {
		usage, stat = "memory.usage_in_bytes", "total_inactive_file"
	}
	b, err := os.ReadFile(filepath.Join(dir, usage))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	b, err = os.ReadFile(filepath.Join(dir, "memory.stat"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if k, v, _ := strings.Cut(strings.TrimSpace(line), " "); k == stat {
			n, _ := strconv.ParseInt(v, 10, 64)
			return u - n
		}
	}
	t.Fatalf("%s/memory.stat has no %s", dir, stat)
	return 0
}

// kernelCPUSeconds is the CPU time the kernel counts for the cgroup of
// cpu folder dir: cpu.stat's usage_usec (v2) or cpuacct.usage (v1, ns).
func kernelCPUSeconds(t *testing.T, dir string) float64 {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(dir, "cpuacct.usage")); err == nil {
		ns, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return float64(ns) / 1e9
	}
	b, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if k, v, _ := strings.Cut(strings.TrimSpace(line), " "); k == "usage_usec" {
			us, _ := strconv.ParseInt(v, 10, 64)
			return float64(us) / 1e6
		}
	}
	t.Fatalf("%s/cpu.stat has no usage_usec", dir)
	return 0
}

func diffRatio(a, b float64) float64 {
	if b == 0 {
		return 1
	}
	return max(a-b, b-a) / b
}
