package main

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// positiveDuration is a duration flag whose unset value is 0: a value
// given (on the command line or by its environment variable) must be more
// than 0, since 0 or less would be taken for unset and run the plan's own
// durations without a word.
type positiveDuration struct{ d *time.Duration }

func (p positiveDuration) String() string {
	if p.d == nil || *p.d == 0 {
		return ""
	}
	return p.d.String()
}

func (p positiveDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("want a duration such as 30s or 2m")
	}
	if d <= 0 {
		return fmt.Errorf("want more than 0, got %s", s)
	}
	*p.d = d
	return nil
}

// countFlag is a count flag whose unset value is 0: a value given must be
// 1 to max.
type countFlag struct {
	n   *int
	max int
}

func (c countFlag) String() string {
	if c.n == nil || *c.n == 0 {
		return ""
	}
	return strconv.Itoa(*c.n)
}

func (c countFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > c.max {
		return fmt.Errorf("want 1 to %d", c.max)
	}
	*c.n = n
	return nil
}
