package watch

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
)

// cgroupRoot is where the host mounts its cgroup hierarchies.
const cgroupRoot = "/sys/fs/cgroup"

// containerCgroup resolves a container target's cgroup folder: the
// runtime gives its main PID (ContainerPID), /proc/PID/cgroup the folder
// (cgroupOfPID).
func containerCgroup(cfg Config) (string, error) {
	pid, err := ContainerPID(context.Background(), cfg.Runtime, cfg.Container)
	if err != nil {
		return "", fmt.Errorf("container %s: %w", cfg.Container, err)
	}
	dir, err := cgroupOfPID(pid)
	if err != nil {
		return "", fmt.Errorf("container %s: %w", cfg.Container, err)
	}
	return dir, nil
}

// cgroupOfPID is the cgroup folder of process pid, from /proc/PID/cgroup:
// its v1 memory hierarchy's folder (/sys/fs/cgroup/memory/PATH, whose
// cpuacct and cpu folders resolveCgroup finds from it), else its v2
// folder ("0::PATH"), under /sys/fs/cgroup on a pure v2 host (the root
// has cgroup.controllers) or /sys/fs/cgroup/unified on a hybrid one.
func cgroupOfPID(pid int) (string, error) {
	file := fmt.Sprintf("/proc/%d/cgroup", pid)
	if procFSErr != nil {
		return "", fmt.Errorf("reading %s: %w", file, procFSErr)
	}
	proc, err := procFS.Proc(pid)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", file, err)
	}
	cgroups, err := proc.Cgroups()
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", file, err)
	}
	v2, hasV2 := "", false
	for _, c := range cgroups {
		if slices.Contains(c.Controllers, "memory") {
			return filepath.Join(cgroupRoot, "memory", c.Path), nil
		}
		if c.HierarchyID == 0 {
			v2, hasV2 = c.Path, true
		}
	}
	if !hasV2 {
		return "", fmt.Errorf("no cgroup line for memory (v1) nor 0:: (v2) in %s", file)
	}
	if exists(filepath.Join(cgroupRoot, "cgroup.controllers")) {
		return filepath.Join(cgroupRoot, v2), nil
	}
	return filepath.Join(cgroupRoot, "unified", v2), nil
}
