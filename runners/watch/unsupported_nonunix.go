//go:build !unix

package watch

import (
	"fmt"
	"syscall"
)

// Stubs of spawn_unix.go and limits_unix.go for systems without process
// groups, Unix signals or rlimits (windows): they return an error wrapping
// ErrUnsupported.

func groupAttr() (*syscall.SysProcAttr, error) {
	return nil, unsupported("spawning a target in its own process group")
}

func kill(int, syscall.Signal) error {
	return unsupported("sending Unix signals")
}

// RaiseFDLimit would raise the soft RLIMIT_NOFILE to the hard limit; this
// system has no such limit, so it returns an error wrapping ErrUnsupported.
func RaiseFDLimit() (soft, hard uint64, raised bool, err error) {
	return 0, 0, false, fmt.Errorf("raising the fd limit: %w", unsupported("RLIMIT_NOFILE"))
}
