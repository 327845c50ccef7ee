//go:build !unix

package main

import (
	"fmt"
	"runtime"

	"github.com/benchtui/benchtui/runners/watch"
)

// Stubs of doctor_unix.go for systems without rlimits or Unix signals
// (windows): their checks report an error wrapping watch.ErrUnsupported.

func fdLimit() (soft, hard uint64, err error) {
	return 0, 0, fmt.Errorf("RLIMIT_NOFILE is %w on %s", watch.ErrUnsupported, runtime.GOOS)
}

func checkPID(int) error {
	return fmt.Errorf("attaching to a running process is %w on %s", watch.ErrUnsupported, runtime.GOOS)
}
