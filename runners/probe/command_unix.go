//go:build unix

package probe

import (
	"os/exec"
	"syscall"
)

// inGroup starts cmd in a process group of its own, and makes its
// context's end kill the whole group.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
