package watch

import (
	"fmt"
	"time"
)

// attach watches a running process (by PID or pidfile), a cgroup, or a
// container's cgroup (resolved by containerCgroup, then watched as a
// cgroup). A goroutine checks every cfg.Sample whether it is still there,
// until Stop.
func attach(cfg Config) (*Process, error) {
	if cfg.Container != "" {
		dir, err := containerCgroup(cfg)
		if err != nil {
			return nil, fmt.Errorf("attaching to target %q: %w", cfg.Name, err)
		}
		cfg.Cgroup = dir
	}
	p := &Process{cfg: cfg, pid: cfg.PID, Exit: newExit(), quit: make(chan struct{})}
	switch {
	case cfg.PIDFile != "":
		pid, err := ReadPIDFile(cfg.PIDFile)
		if err != nil {
			return nil, fmt.Errorf("attaching to target %q: %w", cfg.Name, err)
		}
		p.pid = pid
	case cfg.Cgroup != "":
		p.cgroup = cfg.Cgroup
		if err := CheckCgroup(cfg.Cgroup); err != nil {
			return nil, fmt.Errorf("attaching to target %q: %w", cfg.Name, err)
		}
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

// watch ends p.Exit when the attached target is gone, or returns when
// Stop closes p.quit.
func (p *Process) watch() {
	defer p.watcher.Done()
	tick := time.NewTicker(p.cfg.Sample)
	defer tick.Stop()
	var exited <-chan struct{}
	if p.cgroup == "" {
		var release func()
		exited, release = pidfdWatch(p.pid, p.quit)
		defer release()
	}
	for {
		select {
		case <-p.quit:
			return
		case <-tick.C:
		case <-exited:
			exited = nil
		}
		if p.gone() {
			p.end(p.attachedStatus())
			return
		}
	}
}

// attachedStatus is how the attached target ended: its status where the
// kernel still shows it, else "status unknown"; a cgroup has no one status.
func (p *Process) attachedStatus() string {
	if p.cgroup != "" {
		return "exited (no process left in the cgroup; status unknown)"
	}
	return attachedExitStatus(p.pid)
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
	state := procState(pid)
	return state != "" && state != "Z" && state != "X"
}
