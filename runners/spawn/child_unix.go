//go:build unix

package spawn

import (
	"runtime"
	"syscall"

	"github.com/benchtui/benchtui/runners/watch"
)

// errNoGroups is nil: Unix has process groups.
var errNoGroups error

// unixSignalNames are the signals of signalNames that only Unix has.
var unixSignalNames = map[syscall.Signal]string{
	syscall.SIGUSR1: "usr1", syscall.SIGUSR2: "usr2", syscall.SIGXCPU: "xcpu",
}

// forkGroup starts p as the leader of a new process group, tied to
// benchtui's life, and returns its pid.
func forkGroup(p *proc) (int, error) {
	attr := &syscall.ProcAttr{
		Dir: p.dir, Env: p.env,
		Files: []uintptr{p.files[0].Fd(), p.files[1].Fd(), p.files[2].Fd()},
		Sys:   watch.TieToParent(&syscall.SysProcAttr{Setpgid: true}),
	}
	pid, err := syscall.ForkExec(p.path, p.argv, attr)
	runtime.KeepAlive(p.files)
	return pid, err
}

// waitExit waits until pid has exited and returns its status.
func waitExit(pid int) syscall.WaitStatus {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			return ws
		}
	}
}

// killGroup sends sig to process group pgid; a group already gone (ESRCH)
// is no error worth reporting, nor is any other.
func killGroup(pgid int, sig syscall.Signal) {
	_ = syscall.Kill(-pgid, sig)
}
