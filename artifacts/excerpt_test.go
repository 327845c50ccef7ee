package artifacts

import (
	"strings"
	"testing"
	"unicode/utf8"
)

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
