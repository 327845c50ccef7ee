package plan

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Operators of a comparison, as a plan writes them.
const (
	OpEQ      = "=="
	OpNE      = "!="
	OpLT      = "<"
	OpLE      = "<="
	OpGT      = ">"
	OpGE      = ">="
	OpBetween = "between"
)

// Operators lists the operators a comparison may use, for messages.
const Operators = "==, !=, <, <=, >, >=, between"

// ComparisonOf is an operator and its limit as a plan writes them: exactly
// one key of `"==": 5`, `"!=": 5`, `"<": 20ms`, `"<=": 20ms`, `">": 1`,
// `">=": 200`, `between: [0, 3]` (both ends included), each limit a T. It
// is inlined into threshold checks (whose limits are Operands) and verify
// entries (Comparison), whose other keys stand beside it.
type ComparisonOf[T any] struct {
	EQ      *T  `yaml:"=="`
	NE      *T  `yaml:"!="`
	LT      *T  `yaml:"<"`
	LE      *T  `yaml:"<="`
	GT      *T  `yaml:">"`
	GE      *T  `yaml:">="`
	Between []T `yaml:"between"`
}

// Comparison is an operator with constant limits, as written.
type Comparison = ComparisonOf[string]

// Given reports whether any operator is written.
func (c ComparisonOf[T]) Given() bool {
	op, _, err := c.Operator()
	return op != "" || err != nil
}

// Operator returns the one operator written and its limits as written
// (two for between, else one); "" without any. Two operators, or between
// without exactly two limits, is an error.
func (c ComparisonOf[T]) Operator() (op string, limits []T, err error) {
	var ops []string
	for _, o := range []struct {
		op string
		v  *T
	}{{OpEQ, c.EQ}, {OpNE, c.NE}, {OpLT, c.LT}, {OpLE, c.LE}, {OpGT, c.GT}, {OpGE, c.GE}} {
		if o.v != nil {
			ops = append(ops, o.op)
			op, limits = o.op, []T{*o.v}
		}
	}
	if c.Between != nil {
		ops = append(ops, OpBetween)
		op, limits = OpBetween, c.Between
		if len(c.Between) != 2 {
			return op, limits, fmt.Errorf("between wants two values [low, high], got %d", len(c.Between))
		}
	}
	if len(ops) > 1 {
		return "", nil, fmt.Errorf("one operator per entry, got %s", strings.Join(ops, " and "))
	}
	return op, limits, nil
}

// Limit is a compiled comparison: v Op Lo, or Lo <= v <= Hi for between.
// Millis limits are milliseconds, written as durations ("20ms") or bare
// numbers of milliseconds.
type Limit struct {
	Op     string
	Lo, Hi float64
	Millis bool
}

// CompileLimit parses op's limits: durations or numbers of milliseconds
// when millis, numbers otherwise.
func CompileLimit(op string, limits []string, millis bool) (Limit, error) {
	l := Limit{Op: op, Millis: millis}
	if op == "" {
		return l, fmt.Errorf("no operator: want one of %s", Operators)
	}
	if want := map[bool]int{true: 2, false: 1}[op == OpBetween]; len(limits) != want {
		return l, fmt.Errorf("%s wants %d value(s), got %d", op, want, len(limits))
	}
	vals := make([]float64, len(limits))
	for i, s := range limits {
		v, err := parseLimit(strings.TrimSpace(s), millis)
		if err != nil {
			return l, err
		}
		vals[i] = v
	}
	l.Lo, l.Hi = vals[0], vals[len(vals)-1]
	if op == OpBetween && l.Lo > l.Hi {
		return l, fmt.Errorf("between [%s, %s]: the low end is above the high end", limits[0], limits[1])
	}
	return l, nil
}

// parseLimit reads one limit; in milliseconds when millis.
func parseLimit(s string, millis bool) (float64, error) {
	if v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v, nil
	}
	if !millis {
		return 0, fmt.Errorf("want a number, got %q", s)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("bad duration %q: want a duration such as 250ms, 5s or 2m, or a number of milliseconds", s)
	}
	return float64(d) / float64(time.Millisecond), nil
}

// Holds reports whether v meets the limit. Equality allows a relative
// error of 1e-9, so that figures computed in floating point compare
// equal to the numbers a plan writes.
func (l Limit) Holds(v float64) bool {
	eq := func(a, b float64) bool {
		return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
	}
	switch l.Op {
	case OpEQ:
		return eq(v, l.Lo)
	case OpNE:
		return !eq(v, l.Lo)
	case OpLT:
		return v < l.Lo
	case OpLE:
		return v <= l.Lo
	case OpGT:
		return v > l.Lo
	case OpGE:
		return v >= l.Lo
	case OpBetween:
		return v >= l.Lo && v <= l.Hi
	}
	return false
}

// String is the operator and limit as a check's name shows them:
// "<= 20ms", "between 0 and 3"; milliseconds print as durations.
func (l Limit) String() string {
	if l.Op == OpBetween {
		return fmt.Sprintf("between %s and %s", l.show(l.Lo), l.show(l.Hi))
	}
	return l.Op + " " + l.show(l.Lo)
}

func (l Limit) show(v float64) string {
	if l.Millis {
		return time.Duration(math.Round(v * float64(time.Millisecond))).String()
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// errNoOperator is the problem of an entry that names no operator.
var errNoOperator = errors.New("no operator: want one of " + Operators)
