package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles writes each file (a path under root) with its text, making
// its folders.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A v1 folder whose cpuacct hierarchy is mounted elsewhere, its
// processes' cpuacct cgroup at another path (a hybrid hierarchy, a
// container's mounts), is read through its processes: /proc/PID/cgroup
// says where their cpuacct cgroup is, the mount table where that
// hierarchy is mounted (its root a subfolder, as in a container).
func TestCgroupV1CpuacctElsewhere(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mount := filepath.Join(root, "elsewhere", "cpu acct") // a space, escaped in mountinfo
	writeFiles(t, root, map[string]string{
		"sys/memory/cgroup.sane_behavior":           "0\n",
		"sys/memory/app/cgroup.procs":               "4242\n",
		"sys/memory/app/memory.usage_in_bytes":      "104857600\n",
		"sys/memory/app/memory.stat":                "total_inactive_file 4857600\n",
		"elsewhere/cpu acct/svc/app2/cpuacct.usage": "3000000000\n",
		"elsewhere/cpu acct/svc/app2/cpu.stat":      "nr_throttled 7\nthrottled_time 500000000\n",
		"proc/4242/cgroup":                          "12:memory:/app\n5:cpu,cpuacct:/ns/svc/app2\n0::/init.scope\n",
		"proc/self/mountinfo": "25 1 0:22 / /sys rw - sysfs sysfs rw\n" +
			fmt.Sprintf("35 25 0:30 /ns %s rw,nosuid shared:9 - cgroup cgroup rw,cpu,cpuacct\n", strings.ReplaceAll(mount, " ", `\040`)),
	})
	dir := filepath.Join(root, "sys", "memory", "app")
	f, err := resolveCgroupIn(dir, filepath.Join(root, "proc"))
	if err != nil {
		t.Fatalf("a v1 folder with its cpuacct elsewhere: %v", err)
	}
	want := filepath.Join(mount, "svc", "app2")
	if f.cpu != want || f.throttle != want {
		t.Errorf("cpuacct %q, cpu %q: want both at %q", f.cpu, f.throttle, want)
	}
	var s Sample
	if err := f.readV1(&s); err != nil || s.CPUSeconds != 3 || s.ThrottledPeriods != 7 || s.RSSBytes != 104857600 {
		t.Errorf("sample %+v (%v): want 3 CPU seconds, 7 throttled periods, 100 MiB", s, err)
	}
	// Without a process to ask, it is still refused, naming the file.
	writeFiles(t, root, map[string]string{"sys/memory/app/cgroup.procs": ""})
	if _, err := resolveCgroupIn(dir, filepath.Join(root, "proc")); err == nil || !strings.Contains(err.Error(), "cpuacct.usage") {
		t.Errorf("no process, no cpuacct: %v, want an error naming cpuacct.usage", err)
	}
}

// On a machine whose own v1 cgroups differ by controller (this test's
// memory cgroup at one path, its cpuacct at another), the test's memory
// folder is read whole, its CPU time from the cpuacct cgroup its
// processes are in; unless that is the hierarchy's root, the whole
// machine's, which is refused naming cpuacct.usage rather than measured.
// It skips elsewhere.
func TestCgroupV1OwnHybrid(t *testing.T) {
	t.Parallel()
	mem, okMem := procCgroupPath("/proc/self/cgroup", "memory")
	acct, okAcct := procCgroupPath("/proc/self/cgroup", "cpuacct")
	root, mount, okMount := cgroupMount("/proc/self/mountinfo", "memory")
	if !okMem || !okAcct || !okMount || mem == acct {
		t.Skip("no v1 memory and cpuacct cgroups at different paths here")
	}
	rel, err := filepath.Rel(root, mem)
	if err != nil {
		t.Skip(err)
	}
	dir := filepath.Join(mount, rel)
	s, err := SampleCgroup(dir)
	switch {
	case acct == "/":
		if err == nil || !strings.Contains(err.Error(), "cpuacct.usage") {
			t.Errorf("sample of %s, its cpuacct the machine's root: %+v (%v), want it refused", dir, s, err)
		}
	case err != nil || s.CPUSeconds <= 0 || s.RSSBytes <= 0:
		t.Errorf("sample of %s: %+v (%v): want its memory and its processes' CPU time", dir, s, err)
	}
}
