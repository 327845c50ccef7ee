package watch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat:
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// pageSize converts /proc page counts to bytes.
var pageSize = int64(os.Getpagesize())

// procStat is what benchtui reads of /proc/PID/stat.
type procStat struct {
	state        byte
	utime, stime uint64 // clock ticks
	threads      int
	rssPages     int64
}

// SampleProc reads pid's resources from /proc: RSS, threads and CPU time
// from /proc/PID/stat, open fds from /proc/PID/fd. It costs tens of
// microseconds (see BenchmarkSampleProc), whatever the fd count on Linux
// 6.2 and later.
func SampleProc(pid int) (Sample, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return Sample{}, fmt.Errorf("sampling process %d: %w", pid, err)
	}
	st, err := parseStat(b)
	if err != nil {
		return Sample{}, fmt.Errorf("sampling process %d: %w", pid, err)
	}
	fds, err := countFDs(dir + "/fd")
	if err != nil {
		return Sample{}, fmt.Errorf("sampling process %d: %w", pid, err)
	}
	return Sample{
		RSSBytes:   st.rssPages * pageSize,
		FDs:        fds,
		Threads:    st.threads,
		CPUSeconds: float64(st.utime+st.stime) / clockTicks,
	}, nil
}

// parseStat parses /proc/PID/stat. The command name (field 2) is in
// parentheses and may hold spaces and parentheses, so fields are counted
// from the last ')'. Field 24, rss, is the same counter as statm's
// resident pages, so one read gives memory, threads and CPU.
func parseStat(b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("parsing /proc stat: no ')'")
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3, state
	if len(f) < 22 {
		return procStat{}, fmt.Errorf("parsing /proc stat: %d fields after the name", len(f))
	}
	var st procStat
	var errs [4]error
	st.state = f[0][0]
	st.utime, errs[0] = strconv.ParseUint(string(f[11]), 10, 64)
	st.stime, errs[1] = strconv.ParseUint(string(f[12]), 10, 64)
	st.threads, errs[2] = strconv.Atoi(string(f[17]))
	st.rssPages, errs[3] = strconv.ParseInt(string(f[21]), 10, 64)
	if err := errors.Join(errs[:]...); err != nil {
		return procStat{}, fmt.Errorf("parsing /proc stat: %w", err)
	}
	return st, nil
}

// countFDs counts the open fds of a /proc/PID/fd folder. Since Linux 6.2
// the folder's stat size is that count, at O(1); before, it is 0 and the
// folder is listed (one getdents for a few hundred fds, no stat per fd).
// It is -1 when the folder is not ours to read.
func countFDs(dir string) (int, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err == nil && st.Size > 0 {
		return int(st.Size), nil
	}
	return listFDs(dir)
}

// listFDs counts the entries of a /proc/PID/fd folder with one
// Readdirnames; the kernel builds a dentry per fd, so it costs about half a
// microsecond per fd.
func listFDs(dir string) (int, error) {
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrPermission) {
		return -1, nil
	}
	if err != nil {
		return 0, fmt.Errorf("counting fds: %w", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return 0, fmt.Errorf("counting fds in %s: %w", dir, err)
	}
	n := len(names)
	if dir == "/proc/self/fd" || dir == selfFDDir {
		n-- // the fd of the listing itself
	}
	return n, nil
}

// selfFDDir is benchtui's own fd folder under its PID.
var selfFDDir = "/proc/" + strconv.Itoa(os.Getpid()) + "/fd"
