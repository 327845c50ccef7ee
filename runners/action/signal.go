package action

import (
	"fmt"
	"os"

	"github.com/benchtui/benchtui/runners/plan"
)

// Signal is the signal a plan names (see plan.SignalName).
func Signal(name string) (os.Signal, error) {
	n, ok := plan.SignalName(name)
	if s, known := signals[n]; ok && known {
		return s, nil
	}
	return nil, fmt.Errorf("signal %q: %w", name, os.ErrInvalid)
}

// Ending reports whether a signal of that name ends a process that does
// not handle it in a way the action waits for (KILL, TERM, INT).
func Ending(name string) bool {
	n, _ := plan.SignalName(name)
	return n == "KILL" || n == "TERM" || n == "INT"
}
