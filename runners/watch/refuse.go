package watch

import (
	"fmt"
	"os"
)

// SignalRefusal says why benchtui will not signal pid, "" when it will:
// pid 1 (init, or in a container the container itself), benchtui itself,
// or benchtui's own parent (the shell or program that started it).
func SignalRefusal(pid int) string {
	switch pid {
	case 1:
		return "pid 1 is init (in a container, the container itself)"
	case os.Getpid():
		return fmt.Sprintf("pid %d is benchtui itself", pid)
	case os.Getppid():
		return fmt.Sprintf("pid %d is benchtui's own parent (what started it)", pid)
	}
	return ""
}

// refusePIDs is the error of signalling pids when one of them is a
// process SignalRefusal names; nil when none is.
func refusePIDs(pids []int) error {
	for _, pid := range pids {
		if why := SignalRefusal(pid); why != "" {
			return fmt.Errorf("refused: %s", why)
		}
	}
	return nil
}
