package pgload

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// Polling of a verify entry with `until:`.
const (
	// verifyPoll is the pause between two polls of a waiting entry.
	verifyPoll = 500 * time.Millisecond
	// maxUntil bounds `until:`: a step's checks should not wait longer.
	maxUntil = time.Hour
	// pollGrace lets the last poll, started just before the limit, finish.
	pollGrace = 10 * time.Second
)

// validateOp reports the problems of an entry's comparison and until, at
// at and under key.
func (v Verify) validateOp(at plan.Pos, key string) []error {
	var errs []error
	op, limits, err := v.Operator()
	switch {
	case err != nil:
		return []error{plan.Errorf(at, key, "%v", err)}
	case op != "" && v.Expect != "":
		errs = append(errs, plan.Errorf(at, key, "give expect or an operator (%s), not both", op))
	}
	if op != "" && op != plan.OpEQ && op != plan.OpNE {
		for _, l := range limits {
			if _, err := strconv.ParseFloat(strings.TrimSpace(l), 64); err != nil && !strings.Contains(l, "{{") {
				errs = append(errs, plan.Errorf(at, key+"."+op, "want a number, {{requests}}, {{errors}}, {{group.requests}}, {{group.errors}} or {{by_name.NAME.requests}} (times a whole number or not, or a sum of those), got %q", l))
			}
		}
	}
	switch u := v.Until.D(); {
	case u > maxUntil:
		errs = append(errs, plan.Errorf(at, key+".until", "%s is longer than the %s a verify may wait", u, maxUntil))
	case u > 0 && op == "" && v.Expect == "":
		errs = append(errs, plan.Errorf(at, key+".until", "nothing to wait for: give expect or an operator (%s)", plan.Operators))
	}
	return errs
}

// check runs one entry: once, or with until, polling every verifyPoll
// until its comparison holds or until has passed. A waiting entry that
// never holds fails with the value (or error) of its last poll.
func (v Verify) check(ctx context.Context, name string, sum runners.Summary, query func(context.Context) (string, error)) (runners.Check, error) {
	until := v.Until.D()
	if until <= 0 {
		return v.once(ctx, name, sum, query)
	}
	start := time.Now()
	deadline := start.Add(until)
	pctx, cancel := context.WithDeadline(ctx, deadline.Add(pollGrace))
	defer cancel()
	for {
		c, err := v.once(pctx, name, sum, query)
		if c.OK {
			c.TimeToPassS = time.Since(start).Seconds()
			return c, nil
		}
		wait := min(verifyPoll, time.Until(deadline))
		if wait <= 0 || ctx.Err() != nil {
			c.Note = fmt.Sprintf("did not hold within %s: %s", until, c.Note)
			return c, err
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// once runs the entry's query and judges its value.
func (v Verify) once(ctx context.Context, name string, sum runners.Summary, query func(context.Context) (string, error)) (runners.Check, error) {
	got, err := query(ctx)
	if err != nil {
		return runners.Check{Name: name, Note: err.Error()}, err
	}
	ok, value, note := v.judge(got, sum)
	return runners.Check{Name: name, OK: ok, Value: value, Note: note}, nil
}

// judge compares a value with the entry's operator and limit, or with its
// expect when it has no operator. Limits may read the counts and the
// step's vars (expandVerify); == and != compare text when either side is
// not a number.
func (v Verify) judge(got string, sum runners.Summary) (ok bool, value float64, note string) {
	op, written, _ := v.Operator()
	if op == "" {
		return judge(got, v.Expect, sum)
	}
	limits := make([]string, len(written))
	for i, l := range written {
		limits[i] = expandVerify(l, sum)
	}
	return plan.NewValueComparison(op, limits).Judge(got)
}
