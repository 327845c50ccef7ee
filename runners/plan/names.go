package plan

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/benchtui/benchtui/artifacts"
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
		artifacts.Excerpt(name), MaxNameBytes)
}
