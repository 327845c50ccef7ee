package reap

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procStat is what Sweep and the orphan reaping read of a process's
// /proc/PID/stat.
type procStat struct {
	pid, ppid, pgid, sid int
	state                byte
}

// gone reports whether the process has exited (a zombie waits only for
// its parent's reaping).
func (p procStat) gone() bool { return p.state == 'Z' || p.state == 'X' }

// readStat reads /proc/PID/stat; ok is false when the process is gone.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// The command name, in parentheses, may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procStat{}, false
	}
	p := procStat{pid: pid, state: b[i+2]}
	if _, err := fmt.Sscanf(string(b[i+3:]), "%d %d %d", &p.ppid, &p.pgid, &p.sid); err != nil {
		return procStat{}, false
	}
	return p, true
}

// allPIDs lists the processes of the machine, from /proc.
func allPIDs() ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("listing /proc: %w", err)
	}
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out, nil
}

// markerOf is the value of MarkerVar in the environment pid was started
// with, "" when it has none or cannot be read (another user's process).
func markerOf(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	key := []byte(MarkerVar + "=")
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, key); ok {
			return string(v)
		}
	}
	return ""
}

// childPIDs lists this process's children, from the children files of
// its threads; without them (a kernel built without them) from every
// process's parent.
func childPIDs() []int {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	if len(files) == 0 {
		return childrenByScan()
	}
	var out []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		for _, w := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(w); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

// childrenByScan lists this process's children from every process's
// parent.
func childrenByScan() []int {
	pids, _ := allPIDs()
	var out []int
	for _, pid := range pids {
		if p, ok := readStat(pid); ok && p.ppid == self.pid {
			out = append(out, pid)
		}
	}
	return out
}
