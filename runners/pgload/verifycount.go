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

// countPlus joins the terms of a sum of counts: ` + `, spaces required
// (a by_name name may hold a "+").
var countPlus = regexp.MustCompile(`\s+\+\s+`)

// maxCountTerms bounds the terms of a sum of counts.
const maxCountTerms = 16

// countTerms are the terms of action as a sum of counts
// (`40 * by_name.a.requests + 20 * by_name.b.requests`); nil when one of
// them is no count, or there are more than maxCountTerms.
func countTerms(action string) []string {
	terms := countPlus.Split(action, maxCountTerms+1)
	if len(terms) > maxCountTerms {
		return nil
	}
	for _, t := range terms {
		if !countActionRE.MatchString(t) {
			return nil
		}
	}
	return terms
}

// countAction is the value of a count action of a verify text (what is
// inside its braces: a count, or a sum of counts); known is false when the
// text is no count, ok false when it reads one the step lacks (a by_name
// name it has not).
func countAction(action string, sum runners.Summary) (value int64, known, ok bool) {
	terms := countTerms(action)
	if terms == nil {
		return 0, false, false
	}
	ok = true
	for _, t := range terms {
		v, has := countTerm(t, sum)
		value, ok = value+v, ok && has
	}
	return value, true, ok
}

// countTerm is the value of one count of a verify text (countActionRE);
// ok is false when the step lacks it (a by_name name it has not).
func countTerm(term string, sum runners.Summary) (value int64, ok bool) {
	m := countActionRE.FindStringSubmatch(term) // countTerms matched it
	factor := int64(1)
	if m[1] != "" {
		factor, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m[3] == "" {
		return factor * countOf[m[2]](sum), true
	}
	named, ok := sum.ByName[m[3]]
	if !ok {
		return 0, false
	}
	if m[4] == "errors" {
		return factor * named.Errors, true
	}
	return factor * named.Requests, true
}
