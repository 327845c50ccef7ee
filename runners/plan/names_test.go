package plan

import (
	"strings"
	"testing"
	"unicode/utf8"
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

// TestExcerptIsBounded: a huge text is quoted by its start, cut on a
// rune boundary, with its length.
func TestExcerptIsBounded(t *testing.T) {
	huge := strings.Repeat("é", 1<<20)
	got := Excerpt(huge)
	if len(got) > 200 || !strings.HasSuffix(got, "(2097152 bytes)") || !utf8.ValidString(got) {
		t.Errorf("excerpt of 2 MiB: %q", got)
	}
	if got := Excerpt("a\x1bb"); got != `"a\x1bb"` {
		t.Errorf("short text: %s", got)
	}
}
