//go:build !unix

package action

import (
	"os/exec"
	"syscall"
)

func groupAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the command's process; no process groups here.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil || cmd.ProcessState != nil {
		return nil
	}
	return cmd.Process.Kill()
}

// signals are those the system knows of plan.Signals.
var signals = map[string]syscall.Signal{"KILL": syscall.SIGKILL, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP, "INT": syscall.SIGINT}
