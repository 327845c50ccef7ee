//go:build !unix

package reap

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// OwnGroup returns attr unchanged: no process groups here.
func OwnGroup(attr *syscall.SysProcAttr) *syscall.SysProcAttr { return attr }

// KillGroup kills p alone (no process groups here); one already waited
// for is left alone, as os.Process knows.
func KillGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("killing process %d: %w", p.Pid, err)
	}
	return nil
}

// Alive reports whether a process with that pid runs, as far as the OS
// lets this tell: one that can be found.
func Alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
