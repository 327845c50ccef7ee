package watch

import (
	"fmt"

	"github.com/benchtui/benchtui/runners/plan"
)

// refusePIDs is the error of signalling pids when one of them is a
// process plan.SignalRefusal names; nil when none is.
func refusePIDs(pids []int) error {
	for _, pid := range pids {
		if why := plan.SignalRefusal(pid); why != "" {
			return fmt.Errorf("refused: %s", why)
		}
	}
	return nil
}
