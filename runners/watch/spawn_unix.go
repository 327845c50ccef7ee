//go:build unix

package watch

import "syscall"

// groupAttr puts a spawned target in a process group of its own, so Stop
// can signal the target and everything it started at once.
func groupAttr() (*syscall.SysProcAttr, error) {
	return &syscall.SysProcAttr{Setpgid: true}, nil
}

// kill sends sig to pid, or to process group -pid when pid is negative.
func kill(pid int, sig syscall.Signal) error {
	return syscall.Kill(pid, sig)
}
