package reap

import (
	"fmt"
	"syscall"
)

// KillLeftGroup sends SIGKILL to what is left of process group pgid once
// its leader has been reaped, if anything is: while a member lives, no new
// process can take the group's id, so the signal reaches only the group
// the leader made. A group with no member left is not signalled at all.
func KillLeftGroup(pgid int) error {
	pids, err := allPIDs()
	if err != nil {
		return err
	}
	for _, pid := range pids {
		if p, ok := readStat(pid); ok && p.pgid == pgid && !p.gone() {
			if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
				return fmt.Errorf("killing what is left of process group %d: %w", pgid, err)
			}
			return nil
		}
	}
	return nil
}
