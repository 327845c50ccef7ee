package watch

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// v1Elsewhere is the folder of controller (cpuacct, cpu) for the
// processes of v1 cgroup dir when it is not at dir's own path in that
// controller's hierarchy: a hybrid hierarchy (systemd's) or a container's
// mounts put it elsewhere. The first process of dir's cgroup.procs says
// where its cgroup of that controller is (proc/PID/cgroup), and the mount
// table (proc/self/mountinfo) where that hierarchy is mounted. It reports
// false when no process or no mount says, and for the hierarchy's root:
// every process of the machine is in it, so its CPU time is not the
// folder's.
func v1Elsewhere(dir, proc, controller string) (string, bool) {
	pids, err := cgroupPIDs(dir)
	if err != nil || len(pids) == 0 {
		return "", false
	}
	path, ok := procCgroupPath(filepath.Join(proc, strconv.Itoa(pids[0]), "cgroup"), controller)
	if !ok {
		return "", false
	}
	root, mount, ok := cgroupMount(filepath.Join(proc, "self", "mountinfo"), controller)
	if !ok {
		return "", false
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || path == "/" {
		return "", false // outside what is mounted here, or the whole machine's
	}
	return filepath.Join(mount, rel), true
}

// procCgroupPath is the path of a process's cgroup in the v1 hierarchy
// of controller, read from its /proc/PID/cgroup lines
// ("5:cpu,cpuacct:/system.slice/app.service").
func procCgroupPath(file, controller string) (string, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	for line := range strings.Lines(string(b)) {
		fields := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(fields) == 3 && slices.Contains(strings.Split(fields[1], ","), controller) {
			return fields[2], true
		}
	}
	return "", false
}

// cgroupMount finds the mount of controller's v1 hierarchy in a
// mountinfo file: the folder of the hierarchy it shows (root) and where
// (mount). Fields: ID PARENT DEV ROOT MOUNT OPTIONS [TAGS…] - TYPE SOURCE
// SUPEROPTIONS, the controllers among the super options.
func cgroupMount(file, controller string) (root, mount string, ok bool) {
	f, err := os.Open(file)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, found := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !found || len(fields) < 5 || len(tail) < 3 || tail[0] != "cgroup" {
			continue
		}
		if slices.Contains(strings.Split(tail[2], ","), controller) {
			return unescapeMount(fields[3]), unescapeMount(fields[4]), true
		}
	}
	return "", "", false
}

// unescapeMount undoes mountinfo's octal escapes of a path (\040 for a
// space, \011 a tab, \012 a newline, \134 a backslash).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
