package watch

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// attach watches a running process (by PID or pidfile) or a cgroup. A
// goroutine checks every cfg.Sample whether it is still there, until Stop.
func attach(cfg Config) (*Process, error) {
	p := &Process{cfg: cfg, pid: cfg.PID, exited: make(chan struct{}), quit: make(chan struct{})}
	switch {
	case cfg.PIDFile != "":
		pid, err := ReadPIDFile(cfg.PIDFile)
		if err != nil {
			return nil, fmt.Errorf("attaching to target %q: %w", cfg.Name, err)
		}
		p.pid = pid
	case cfg.Cgroup != "":
		p.cgroup = cfg.Cgroup
		if _, err := cgroupPIDs(cfg.Cgroup); err != nil {
			return nil, fmt.Errorf("attaching to target %q: %w", cfg.Name, err)
		}
	}
	if p.cgroup == "" && !alive(p.pid) {
		return nil, fmt.Errorf("attaching to target %q: no running process %d", cfg.Name, p.pid)
	}
	p.watcher.Add(1)
	go p.watch()
	return p, nil
}

// watch closes p.exited when the attached target is gone, or returns when
// Stop closes p.quit.
func (p *Process) watch() {
	defer p.watcher.Done()
	tick := time.NewTicker(p.cfg.Sample)
	defer tick.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-tick.C:
		}
		if p.gone() {
			p.status = "exited"
			close(p.exited)
			return
		}
	}
}

// gone reports whether the attached process, or every process of the
// attached cgroup, has exited.
func (p *Process) gone() bool {
	if p.cgroup == "" {
		return !alive(p.pid)
	}
	pids, err := cgroupPIDs(p.cgroup)
	return err != nil || len(pids) == 0
}

// alive reports whether pid exists and is not a zombie (a zombie has
// exited; only its parent's wait is missing).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	st, err := parseStat(b)
	return err == nil && st.state != 'Z' && st.state != 'X'
}

// ReadPIDFile reads the PID on the first line of a pidfile (Postgres's
// postmaster.pid has more lines after it).
func ReadPIDFile(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("reading pidfile: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return 0, fmt.Errorf("reading pidfile %s: %w", path, err)
		}
		return 0, fmt.Errorf("reading pidfile %s: it is empty", path)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("reading pidfile %s: first line %q is not a PID", path, sc.Text())
	}
	return pid, nil
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
