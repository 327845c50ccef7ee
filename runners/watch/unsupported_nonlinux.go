//go:build !linux

package watch

import (
	"fmt"
	"runtime"
	"syscall"
)

// Stubs of the /proc and cgroup code of the *_linux.go files for other
// systems: they return an error wrapping ErrUnsupported, so a plan with a
// target fails with a clear message there, and samples are simply missing.

// unsupported says that what cannot be done on this GOOS.
func unsupported(what string) error {
	return fmt.Errorf("%s is %w on %s", what, ErrUnsupported, runtime.GOOS)
}

// attach is not supported: telling a running process from a zombie, and
// sampling it, reads /proc.
func attach(cfg Config) (*Process, error) {
	return nil, fmt.Errorf("attaching to target %q: %w", cfg.Name, unsupported("process watching"))
}

// signalCgroup is never reached: attaching to a cgroup is not supported.
func signalCgroup(dir string, _ syscall.Signal) error {
	return fmt.Errorf("signalling cgroup %s: %w", dir, unsupported("process watching"))
}

// descendants is never reached: SampleTree fails on SampleProc first.
func descendants(int) []int { return nil }

// SampleProc reads pid's resources from /proc on Linux; here it returns an
// error wrapping ErrUnsupported.
func SampleProc(pid int) (Sample, error) {
	return Sample{}, fmt.Errorf("sampling process %d: %w", pid, unsupported("process watching"))
}

// SampleCgroup reads a cgroup folder as one target on Linux; here it
// returns an error wrapping ErrUnsupported.
func SampleCgroup(dir string) (Sample, error) {
	return Sample{}, fmt.Errorf("sampling cgroup %s: %w", dir, unsupported("process watching"))
}

// UDPBufferMax reads net.core.rmem_max on Linux; here it returns an error
// wrapping ErrUnsupported.
func UDPBufferMax() (rmemMax int, err error) {
	return 0, fmt.Errorf("reading net.core.rmem_max: %w", unsupported("reading the UDP buffer limit"))
}

// samplePSS is never reached: SampleTree fails on SampleProc first.
func samplePSS(int) (pss, uss int64, err error) { return 0, 0, nil }

// CheckCgroup checks a cgroup folder's files on Linux; here it returns an
// error wrapping ErrUnsupported.
func CheckCgroup(dir string) error {
	return fmt.Errorf("cgroup %s: %w", dir, unsupported("cgroup watching"))
}
