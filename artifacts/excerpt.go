package artifacts

import (
	"fmt"
	"unicode/utf8"
)

// maxExcerpt is how much of a text Excerpt quotes.
const maxExcerpt = 64

// Excerpt quotes s for a message, escaped as Go quotes strings, and cut
// to its first 64 bytes with its length when longer: a message never
// echoes a huge input whole.
func Excerpt(s string) string {
	if len(s) <= maxExcerpt {
		return fmt.Sprintf("%q", s)
	}
	cut := maxExcerpt
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:cut], len(s))
}
