//go:build unix

package watch

import (
	"fmt"
	"syscall"
)

// RaiseFDLimit sets the soft RLIMIT_NOFILE of benchtui's process to its hard
// limit, so a load of many connections is not cut at 1024. The Go runtime
// (1.19+) already does so at start, so raised is usually false; children
// started by os/exec get the original soft limit back.
func RaiseFDLimit() (soft, hard uint64, raised bool, err error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, false, fmt.Errorf("reading the fd limit: %w", err)
	}
	if lim.Cur >= lim.Max {
		return lim.Cur, lim.Max, false, nil
	}
	want := lim
	want.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
		return lim.Cur, lim.Max, false, fmt.Errorf("raising the fd limit from %d to %d: %w", lim.Cur, lim.Max, err)
	}
	return want.Cur, want.Max, true, nil
}
