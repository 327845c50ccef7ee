//go:build unix

package reap

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// OwnGroup returns attr (a new one when nil) set to start the process as
// the leader of a new process group: signals to the group reach what it
// starts, and (Linux) it is never taken for an adopted orphan.
func OwnGroup(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	attr.Setpgid = true
	return attr
}

// KillGroup sends SIGKILL to the process group that p leads; a group
// already gone is no error. Call it while p is not reaped, or right
// after: the group's id cannot be taken by a new process while a member
// of the group lives.
func KillGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if err == nil || err == syscall.ESRCH {
		return nil
	}
	return fmt.Errorf("killing process group %d: %w", p.Pid, err)
}

// Alive reports whether a process with that pid runs: it exists and is
// not a zombie (read from /proc where there is one, else a signal 0).
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	// The state follows the command name, which is in parentheses.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}
