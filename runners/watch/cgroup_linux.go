package watch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// cgroupFiles is where a cgroup folder's figures are. On v2 one folder holds
// them all; on v1 memory and CPU live in separate hierarchies (memory/…,
// cpuacct/… or cpu,cpuacct/…), under the same relative path or, in a
// hybrid hierarchy or a container, where the folder's processes say
// (v1Elsewhere).
type cgroupFiles struct {
	v2  bool
	mem string // memory.current (v2) or memory.usage_in_bytes (v1)
	cpu string // cpu.stat (v2) or cpuacct.usage (v1)
	// throttle is the folder of a v1 cpu.stat (nr_throttled,
	// throttled_time), "" when the cpu controller is not mounted.
	throttle string
}

// CheckCgroup resolves a cgroup folder (v2, or v1 in any of its
// hierarchies) and reports, naming it, the first file benchtui needs that
// is missing: memory.current, memory.stat and cpu.stat on v2;
// memory.usage_in_bytes, memory.stat and cpuacct.usage on v1. A folder
// that cannot be read is an error, never a target measured as zeros.
func CheckCgroup(dir string) error {
	_, err := resolveCgroup(dir)
	return err
}

// resolveCgroup finds the files of cgroup dir and checks they exist.
func resolveCgroup(dir string) (cgroupFiles, error) { return resolveCgroupIn(dir, "/proc") }

// resolveCgroupIn is resolveCgroup with proc as /proc: where a v1
// folder's processes say their cpuacct and cpu cgroups are when they are
// not at its own path (v1Elsewhere).
func resolveCgroupIn(dir, proc string) (cgroupFiles, error) {
	if st, err := os.Stat(dir); err != nil {
		return cgroupFiles{}, fmt.Errorf("cgroup %s: %w", dir, err)
	} else if !st.IsDir() {
		return cgroupFiles{}, fmt.Errorf("cgroup %s: not a folder", dir)
	}
	if exists(filepath.Join(dir, "memory.current")) || exists(filepath.Join(dir, "cgroup.controllers")) {
		f := cgroupFiles{v2: true, mem: dir, cpu: dir}
		return f, needFiles(dir, "memory.current", "memory.stat", "cpu.stat")
	}
	f := cgroupFiles{mem: dir, cpu: dir}
	if base, rel, ok := v1Hierarchy(dir); ok {
		f.mem = firstDir(filepath.Join(base, "memory", rel))
		f.cpu = firstDir(filepath.Join(base, "cpuacct", rel), filepath.Join(base, "cpu,cpuacct", rel))
		f.throttle = firstDir(filepath.Join(base, "cpu", rel), filepath.Join(base, "cpu,cpuacct", rel))
		if !exists(filepath.Join(f.throttle, "cpu.stat")) {
			f.throttle = ""
		}
	} else if exists(filepath.Join(dir, "cpu.stat")) {
		f.throttle = dir
	}
	if d, ok := v1Elsewhere(dir, proc, "cpuacct"); ok && !exists(filepath.Join(f.cpu, "cpuacct.usage")) {
		f.cpu = d
	}
	if d, ok := v1Elsewhere(dir, proc, "cpu"); ok && f.throttle == "" && exists(filepath.Join(d, "cpu.stat")) {
		f.throttle = d
	}
	if err := needFiles(f.mem, "memory.usage_in_bytes", "memory.stat"); err != nil {
		return f, fmt.Errorf("%w (neither a v2 folder: no memory.current)", err)
	}
	if err := needFiles(f.cpu, "cpuacct.usage"); err != nil {
		return f, fmt.Errorf("%w (nor in a cpuacct cgroup of its processes other than the hierarchy's root, which is the whole machine's)", err)
	}
	return f, nil
}

// v1Hierarchy splits a folder of a v1 hierarchy into the folder holding
// the hierarchies (/sys/fs/cgroup) and its path inside its own hierarchy,
// found by walking up to the hierarchy's root (the folder with
// cgroup.sane_behavior, which only a v1 root has).
func v1Hierarchy(dir string) (base, rel string, ok bool) {
	dir = filepath.Clean(dir)
	for root := dir; root != filepath.Dir(root); root = filepath.Dir(root) {
		if exists(filepath.Join(root, "cgroup.sane_behavior")) {
			rel, err := filepath.Rel(root, dir)
			return filepath.Dir(root), rel, err == nil
		}
	}
	return "", "", false
}

// firstDir returns the first of dirs that exists, else the first.
func firstDir(dirs ...string) string {
	for _, d := range dirs {
		if exists(d) {
			return d
		}
	}
	return dirs[0]
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// needFiles reports the first of names missing from dir.
func needFiles(dir string, names ...string) error {
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			return fmt.Errorf("cgroup %s: cannot read %s: %w", dir, n, err)
		}
	}
	return nil
}

// SampleCgroup reads a cgroup folder as one target: memory usage, the
// kubelet's working set (usage - inactive_file), the kernel's peak, CPU
// time, throttling and OOM kills from the cgroup's files (v2 or v1); fds
// and threads summed over the processes of cgroup.procs (a process that
// exits meanwhile is skipped).
func SampleCgroup(dir string) (Sample, error) {
	f, err := resolveCgroup(dir)
	if err != nil {
		return Sample{}, fmt.Errorf("sampling %w", err)
	}
	return f.sample(dir)
}

func (f cgroupFiles) sample(dir string) (Sample, error) {
	var s Sample
	var err error
	if f.v2 {
		err = f.readV2(&s)
	} else {
		err = f.readV1(&s)
	}
	if err != nil {
		return Sample{}, fmt.Errorf("sampling cgroup %s: %w", dir, err)
	}
	pids, err := cgroupPIDs(dir)
	if err != nil {
		return Sample{}, fmt.Errorf("sampling cgroup %s: %w", dir, err)
	}
	for _, pid := range pids {
		ps, err := SampleProc(pid)
		if isNotExist(err) {
			continue
		}
		if err != nil {
			return Sample{}, fmt.Errorf("sampling cgroup %s: %w", dir, err)
		}
		if ps.FDs < 0 || s.FDs < 0 {
			s.FDs = -1
		} else {
			s.FDs += ps.FDs
		}
		s.Threads += ps.Threads
	}
	return s, nil
}

// readV2 reads memory.current, memory.stat, memory.peak (kernel 5.19+),
// memory.events and cpu.stat.
func (f cgroupFiles) readV2(s *Sample) error {
	var errs [3]error
	s.RSSBytes, errs[0] = readInt(f.mem, "memory.current")
	st, err := readKeyed(f.mem, "memory.stat")
	errs[1] = err
	s.WorkingSetBytes = max(0, s.RSSBytes-st["inactive_file"])
	s.MemPeakBytes, _ = readInt(f.mem, "memory.peak") // optional
	if ev, err := readKeyed(f.mem, "memory.events"); err == nil {
		s.OOMKills = ev["oom_kill"]
	}
	cpu, err := readKeyed(f.cpu, "cpu.stat")
	errs[2] = err
	if _, ok := cpu["usage_usec"]; err == nil && !ok {
		errs[2] = fmt.Errorf("%s/cpu.stat has no usage_usec", f.cpu)
	}
	s.CPUSeconds = float64(cpu["usage_usec"]) / 1e6
	s.ThrottledPeriods = cpu["nr_throttled"]
	s.ThrottledSeconds = float64(cpu["throttled_usec"]) / 1e6
	return errors.Join(errs[:]...)
}

// readV1 reads memory.usage_in_bytes, memory.stat (total_inactive_file, the
// kubelet's v1 figure), memory.max_usage_in_bytes, memory.oom_control,
// cpuacct.usage and the cpu hierarchy's cpu.stat.
func (f cgroupFiles) readV1(s *Sample) error {
	var errs [3]error
	s.RSSBytes, errs[0] = readInt(f.mem, "memory.usage_in_bytes")
	st, err := readKeyed(f.mem, "memory.stat")
	errs[1] = err
	inactive, ok := st["total_inactive_file"]
	if !ok {
		inactive = st["inactive_file"]
	}
	s.WorkingSetBytes = max(0, s.RSSBytes-inactive)
	s.MemPeakBytes, _ = readInt(f.mem, "memory.max_usage_in_bytes")
	if oc, err := readKeyed(f.mem, "memory.oom_control"); err == nil {
		s.OOMKills = oc["oom_kill"]
	}
	ns, err := readInt(f.cpu, "cpuacct.usage")
	errs[2] = err
	s.CPUSeconds = float64(ns) / 1e9
	if f.throttle != "" {
		if cpu, err := readKeyed(f.throttle, "cpu.stat"); err == nil {
			s.ThrottledPeriods = cpu["nr_throttled"]
			s.ThrottledSeconds = float64(cpu["throttled_time"]) / 1e9
		}
	}
	return errors.Join(errs[:]...)
}

// readInt reads a file of one integer ("max" reads as 0).
func readInt(dir, name string) (int64, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return 0, fmt.Errorf("reading %w", err)
	}
	v := strings.TrimSpace(string(b))
	if v == "max" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parsing %s/%s: %w", dir, name, err)
	}
	return n, nil
}

// readKeyed reads a flat keyed file of "key value" lines (memory.stat,
// cpu.stat, memory.events, memory.oom_control).
func readKeyed(dir, name string) (map[string]int64, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, fmt.Errorf("reading %w", err)
	}
	m := make(map[string]int64, 48)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			m[k] = n
		}
	}
	return m, nil
}

// cgroupPIDs lists the processes of a cgroup folder (cgroup.procs).
func cgroupPIDs(dir string) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil, fmt.Errorf("listing processes of cgroup: %w", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("parsing %s/cgroup.procs: %w", dir, err)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}

// signalCgroup sends sig to every process of a cgroup, unless it holds
// one SignalRefusal names (then to none).
func signalCgroup(dir string, sig syscall.Signal) error {
	pids, err := cgroupPIDs(dir)
	if err != nil {
		return err
	}
	if len(pids) == 0 {
		return syscall.ESRCH
	}
	if err := refusePIDs(pids); err != nil {
		return err
	}
	var errs []error
	for _, pid := range pids {
		if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			errs = append(errs, fmt.Errorf("pid %d: %w", pid, err))
		}
	}
	return errors.Join(errs...)
}

// isNotExist reports whether err says a file (or process) is gone.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}
