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

// SampleCgroup reads a cgroup folder as one target: memory from
// memory.current (v2) or memory.usage_in_bytes (v1); CPU from cpu.stat's
// usage_usec (v2) or cpuacct.usage (v1, in the same folder); fds and
// threads summed over the processes of cgroup.procs (a process that exits
// meanwhile is skipped).
func SampleCgroup(dir string) (Sample, error) {
	var s Sample
	var err error
	if s.RSSBytes, err = cgroupMemory(dir); err != nil {
		return Sample{}, err
	}
	if s.CPUSeconds, err = cgroupCPU(dir); err != nil {
		return Sample{}, err
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

// cgroupMemory reads a cgroup's memory use in bytes.
func cgroupMemory(dir string) (int64, error) {
	for _, name := range []string{"memory.current", "memory.usage_in_bytes"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if isNotExist(err) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("reading cgroup memory: %w", err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parsing %s/%s: %w", dir, name, err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("reading cgroup memory: %s has neither memory.current nor memory.usage_in_bytes", dir)
}

// cgroupCPU reads a cgroup's cumulative CPU time in seconds.
func cgroupCPU(dir string) (float64, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), " ")
			if k != "usage_usec" {
				continue
			}
			us, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parsing %s/cpu.stat usage_usec: %w", dir, err)
			}
			return float64(us) / 1e6, nil
		}
	} else if !isNotExist(err) {
		return 0, fmt.Errorf("reading cgroup cpu: %w", err)
	}
	b, err = os.ReadFile(filepath.Join(dir, "cpuacct.usage"))
	if err != nil {
		return 0, fmt.Errorf("reading cgroup cpu (no usage_usec in cpu.stat): %w", err)
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parsing %s/cpuacct.usage: %w", dir, err)
	}
	return float64(ns) / 1e9, nil
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

// signalCgroup sends sig to every process of a cgroup.
func signalCgroup(dir string, sig syscall.Signal) error {
	pids, err := cgroupPIDs(dir)
	if err != nil {
		return err
	}
	if len(pids) == 0 {
		return syscall.ESRCH
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
