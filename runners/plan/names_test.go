package plan

import (
	"strings"
	"testing"
)

func TestNameProblem(t *testing.T) {
	for _, ok := range []string{"", "login", "GET /users/{id}", "é-名前", strings.Repeat("a", MaxNameBytes)} {
		if p := NameProblem(ok); p != "" {
			t.Errorf("%q: %s; want fine", ok, p)
		}
	}
	for _, bad := range []string{"a\tb", "\x1b[2J", "a\nb", "\u009b", "\xff", strings.Repeat("a", MaxNameBytes+1)} {
		if NameProblem(bad) == "" {
			t.Errorf("%q: want refused", bad)
		}
	}
}
