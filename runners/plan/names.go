package plan

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameBytes bounds a name a plan gives a request, a flow step, a
// statement, a verify entry, an action or a setup or teardown entry.
const MaxNameBytes = 200

// NameProblem is what is wrong with such a name, "" when nothing: a name
// labels figures (by_name, p99[NAME]), checks and events, and shows on
// the terminal and in reports, so it is one line of valid UTF-8 without
// control characters (ESC would reach the terminal; artifacts holding one
// are refused on load) and at most MaxNameBytes long.
func NameProblem(name string) string {
	if len(name) <= MaxNameBytes && utf8.ValidString(name) && !strings.ContainsFunc(name, unicode.IsControl) {
		return ""
	}
	return fmt.Sprintf("%s: want one line of at most %d bytes without control characters (it labels figures and shows on screen)",
		Excerpt(name), MaxNameBytes)
}

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
