//go:build unix

package action

import (
	"os/exec"
	"syscall"
)

// groupAttr puts a command in a process group of its own, so a timeout
// kills what it started too (a shell's children).
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup sends SIGKILL to the command's process group.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return nil
	}
	return err
}

var signals = map[string]syscall.Signal{
	"KILL": syscall.SIGKILL, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP,
	"INT": syscall.SIGINT, "USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2,
}
