package watch

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"github.com/prometheus/procfs"
)

// SampleProc reads pid's resources from /proc with prometheus/procfs: RSS,
// threads and CPU time from /proc/PID/stat, open fds from /proc/PID/fd
// (the folder's size since Linux 6.2, O(1); a listing before). It costs
// tens of microseconds (BenchmarkSampleProc, docs/perf-spawn.md's note on
// sampling). Fds are -1 when the folder is not ours to read.
func SampleProc(pid int) (Sample, error) {
	p, st, err := procStat(pid)
	if err != nil {
		return Sample{}, fmt.Errorf("sampling process %d: %w", pid, err)
	}
	fds, err := p.FileDescriptorsLen()
	switch {
	case errors.Is(err, os.ErrPermission):
		fds = -1
	case err != nil:
		return Sample{}, fmt.Errorf("sampling process %d: counting fds: %w", pid, err)
	case pid == os.Getpid() && !fdCountIsSize(pid):
		fds-- // the listing's own fd
	}
	return Sample{
		RSSBytes:   int64(st.ResidentMemory()),
		FDs:        fds,
		Threads:    st.NumThreads,
		CPUSeconds: st.CPUTime(),
	}, nil
}

// procStat reads /proc/PID/stat.
func procStat(pid int) (procfs.Proc, procfs.ProcStat, error) {
	if procFSErr != nil {
		return procfs.Proc{}, procfs.ProcStat{}, procFSErr
	}
	p, err := procFS.Proc(pid)
	if err != nil {
		return p, procfs.ProcStat{}, err
	}
	st, err := p.Stat()
	return p, st, err
}

// procState is pid's state letter from /proc/PID/stat ("Z" for a zombie),
// "" when it cannot be read (gone).
func procState(pid int) string {
	_, st, err := procStat(pid)
	if err != nil {
		return ""
	}
	return st.State
}

// fdCountIsSize reports whether the kernel gives a /proc/PID/fd folder's
// fd count as its size (Linux 6.2+), so that counting opens no fd.
func fdCountIsSize(pid int) bool {
	var st syscall.Stat_t
	return syscall.Stat("/proc/"+strconv.Itoa(pid)+"/fd", &st) == nil && st.Size > 0
}
