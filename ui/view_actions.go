package ui

import (
	"fmt"

	"github.com/benchtui/benchtui/artifacts"
)

// actionLine is the step's latest action, one line, when the group has
// actions: when it ran, what it was and how it went (a failure in the
// error style), and how many actions have run in the step.
func (m *Model) actionLine(gr *group, w int) []string {
	if !gr.seen {
		return nil
	}
	var last *artifacts.Event
	n := 0
	for i := range gr.snap.Events {
		if e := &gr.snap.Events[i]; e.Action != nil {
			last, n = e, n+1
		}
	}
	if last == nil {
		return nil
	}
	text := fmt.Sprintf(" action %d at %.1fs: %s", n, last.T, last.Note)
	if !last.Action.OK {
		return []string{m.st.Error.Render(fit(text, w))}
	}
	return []string{m.st.Info.Render(fit(text, w))}
}
