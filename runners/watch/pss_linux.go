package watch

import (
	"errors"
	"fmt"
	"os"

	"github.com/prometheus/procfs"
)

// procFS is /proc as prometheus/procfs reads it.
var procFS, procFSErr = procfs.NewFS(procfs.DefaultMountPoint)

// samplePSS reads pid's PSS and USS (Private_Clean + Private_Dirty) from
// /proc/PID/smaps_rollup with prometheus/procfs. It is -1, -1 when the
// file is not ours to read (another user's process without
// CAP_SYS_PTRACE).
func samplePSS(pid int) (pss, uss int64, err error) {
	if procFSErr != nil {
		return 0, 0, fmt.Errorf("reading smaps_rollup of %d: %w", pid, procFSErr)
	}
	var r procfs.ProcSMapsRollup
	p, err := procFS.Proc(pid)
	if err == nil {
		r, err = p.ProcSMapsRollup()
	}
	if errors.Is(err, os.ErrPermission) {
		return -1, -1, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("reading smaps_rollup of %d: %w", pid, err)
	}
	return int64(r.Pss), int64(r.PrivateClean + r.PrivateDirty), nil
}
