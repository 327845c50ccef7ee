//go:build unix

package main

import "syscall"

// fdLimit reads the soft and hard RLIMIT_NOFILE.
func fdLimit() (soft, hard uint64, err error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, err
	}
	return lim.Cur, lim.Max, nil
}

// checkPID says why pid is not a running process, nil when it is (EPERM:
// it runs as another user).
func checkPID(pid int) error {
	if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
		return err
	}
	return nil
}
