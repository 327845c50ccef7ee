package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// ValueComparison is an operator and its limits for a value read as text
// (a verify entry's value, a field of an HTTP reply): numbers compare
// numerically (Limit.Holds); == and != compare text when either side is
// not a number. The limits are compiled once.
type ValueComparison struct {
	op     string
	limits []string
	lim    Limit
	err    error // the limits are not numbers
}

// NewValueComparison compiles op and its limits, already filled in.
func NewValueComparison(op string, limits []string) ValueComparison {
	lim, err := CompileLimit(op, limits, false)
	return ValueComparison{op: op, limits: limits, lim: lim, err: err}
}

// Judge compares got with the limits: value is got as a number (0 when it
// is not one), note says why it does not hold ("got 3, want == 0").
func (c ValueComparison) Judge(got string) (ok bool, value float64, note string) {
	gotNum, gotErr := strconv.ParseFloat(strings.TrimSpace(got), 64)
	if gotErr == nil {
		value = gotNum
	}
	switch {
	case c.err != nil && (c.op == OpEQ || c.op == OpNE):
		ok = (got == c.limits[0]) == (c.op == OpEQ)
		if !ok {
			note = fmt.Sprintf("got %s, want %s %s", QuoteValue(got), c.op, QuoteValue(c.limits[0]))
		}
		return ok, value, note
	case c.err != nil:
		return false, value, fmt.Sprintf("limit: %v", c.err)
	case gotErr != nil:
		return false, 0, fmt.Sprintf("got %s, want a number %s", QuoteValue(got), c.lim)
	}
	if ok = c.lim.Holds(gotNum); !ok {
		note = fmt.Sprintf("got %s, want %s", QuoteValue(got), c.lim)
	}
	return ok, value, note
}

// QuoteValue shows a value read in a message: a number as it is, other
// text quoted, cut to 60 bytes.
func QuoteValue(s string) string {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return strconv.Quote(s)
}
