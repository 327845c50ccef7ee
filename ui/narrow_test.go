package ui

import (
	"strings"
	"testing"
)

// TestListTakesAThirdWhenNarrow: at 40x12 the groups list, with ids as
// long as the demo's, takes at most a third of the width and the pane
// the rest; from 60 columns on the list keeps its room for the ids.
func TestListTakesAThirdWhenNarrow(t *testing.T) {
	for _, c := range []struct{ w, h, most int }{{40, 12, 13}, {50, 16, 16}, {60, 20, 22}} {
		m := newTestModel(t, c.w, c.h) // its longest id, pg-claim-skip, wants 22 columns
		lines := strings.Split(screen(m), "\n")
		col := strings.Index(lines[1], " │ ")
		if col < 0 || len1(lines[1][:col]) > c.most {
			t.Errorf("%dx%d: the list takes %d columns, want at most %d:\n%s", c.w, c.h, len1(lines[1][:max(col, 0)]), c.most, strings.Join(lines, "\n"))
		}
	}
}
