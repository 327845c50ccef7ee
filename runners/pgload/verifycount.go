package pgload

import (
	"regexp"
	"strconv"

	"github.com/benchtui/benchtui/runners"
)

// countActionRE is a count a verify text may read, optionally times a
// whole number: `requests`, `group.errors`, `by_name.NAME.requests`,
// `40 * by_name.writer/events40.requests`. Group 1 is the factor, 2 the
// count, 3 and 4 a by_name count's name and figure.
var countActionRE = regexp.MustCompile(`^(?:(\d{1,9})\s*\*\s*)?(requests|errors|group\.requests|group\.errors|by_name\.(.+)\.(requests|errors))$`)

// countAction is the value of a count action of a verify text (what is
// inside its braces); known is false when the text is no count, ok false
// when it is one the step lacks (a by_name name it has not).
func countAction(action string, sum runners.Summary) (value int64, known, ok bool) {
	m := countActionRE.FindStringSubmatch(action)
	if m == nil {
		return 0, false, false
	}
	factor := int64(1)
	if m[1] != "" {
		factor, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m[3] == "" {
		return factor * countOf[m[2]](sum), true, true
	}
	named, ok := sum.ByName[m[3]]
	if !ok {
		return 0, true, false
	}
	if m[4] == "errors" {
		return factor * named.Errors, true, true
	}
	return factor * named.Requests, true, true
}
