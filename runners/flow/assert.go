package flow

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// KindAssertion is the error kind of a request whose reply had an
// expected status but failed one of its `assert:` entries.
const KindAssertion = "assertion"

// Assert is one entry of a request's `assert:` list: a condition its
// reply must meet. It reads one source, as a capture does: JSON (an RFC
// 9535 JSONPath into the body: its first node), Header (a reply header's
// first value) or Body (a regular expression over the body). A JSON or
// header value is judged by one of: an operator and its limit
// (plan.Comparison, as verify entries write it), Match (a regular
// expression it must match), or Absent (true: it must not be there,
// false: it must be). A Body pattern must match, or with Absent true must
// not.
type Assert struct {
	JSON   string `yaml:"json"`
	Header string `yaml:"header"`
	Body   string `yaml:"body"`
	Match  string `yaml:"match"`
	Absent *bool  `yaml:"absent"`
	// Comparison is one operator and its limit (`"==": 0`,
	// `between: [1, 5]`); limits may hold templates ({{.N}}), rendered per
	// reply with the request's own template state.
	plan.Comparison `yaml:",inline"`
	// Pos is where the entry starts in the plan file.
	Pos plan.Pos `yaml:"-"`
}

// Limits of assertions and tallies.
const (
	// MaxAsserts bounds a request's assert entries.
	MaxAsserts = 16
	// MaxTallies bounds a request's tallies.
	MaxTallies = 8
)

// Checks are a request's compiled `assert:` and `tally:`.
type Checks struct {
	// Headers are the reply headers they read, after the ones the
	// request's captures read (the base they were compiled on): a sender
	// fills Reply.Headers with their values, in this order.
	Headers []string
	asserts []assertion
	tallies []tally
	body    bool
}

// assertion is a compiled Assert.
type assertion struct {
	what   string     // the source as a message names it: assert[1] $.accepted
	src    *extractor // a json or header source; nil for body
	body   *regexp.Regexp
	match  *regexp.Regexp
	absent *bool
	op     string
	limits []*tmpl.Template // nil when literal: cmp is compiled once
	cmp    plan.ValueComparison
}

// tally counts a pattern's matches in each reply into a counter.
type tally struct {
	counter string
	re      *regexp.Regexp
}

// LimitCompiler compiles a limit that holds template actions; the runner that
// owns the request's templates gives it.
type LimitCompiler func(src string) (*tmpl.Template, error)

// CompileChecks checks a request's assert entries and tallies and
// compiles them. headers are the reply headers the request reads already
// (its captures'), which Checks.Headers extends; compile compiles a limit
// holding templates. Problems name the field under the request's key
// (assert[1].json, tally.frames) and carry the entry's position when it
// has one. It returns nil Checks for a request with neither.
func CompileChecks(asserts []Assert, tallies map[string]string, headers []string, compile LimitCompiler) (*Checks, []Problem) {
	if len(asserts) == 0 && len(tallies) == 0 {
		return nil, nil
	}
	c := &Checks{Headers: slices.Clone(headers)}
	var errs []Problem
	if len(asserts) > MaxAsserts {
		errs = append(errs, problem("assert", "%d entries; at most %d", len(asserts), MaxAsserts))
	}
	for i, a := range asserts[:min(len(asserts), MaxAsserts)] {
		key := fmt.Sprintf("assert[%d]", i)
		ca, p := a.compile(key, &c.Headers, compile)
		for j := range p {
			p[j].At = a.Pos
		}
		errs = append(errs, p...)
		c.asserts = append(c.asserts, ca)
		c.body = c.body || ca.body != nil || ca.src != nil && ca.src.path != nil
	}
	errs = append(errs, c.compileTallies(tallies)...)
	return c, errs
}

// compileTallies compiles the tallies, by counter name.
func (c *Checks) compileTallies(tallies map[string]string) []Problem {
	if len(tallies) > MaxTallies {
		return []Problem{problem("tally", "%d tallies; at most %d", len(tallies), MaxTallies)}
	}
	var errs []Problem
	for _, name := range slices.Sorted(maps.Keys(tallies)) {
		key := "tally." + name
		if !validVar.MatchString(name) {
			errs = append(errs, problem(key, "want a counter name of letters, digits and _ (a letter first, up to 64)"))
			continue
		}
		if slices.Contains(Counters(), name) {
			errs = append(errs, problem(key, "%q is a counter of flows that renew; name the tally apart", name))
		}
		re, p := compilePattern(tallies[name], key)
		if p.Msg != "" || re == nil {
			errs = append(errs, problem(key, "%s", cmp.Or(p.Msg, "want a regular expression")))
			continue
		}
		c.tallies = append(c.tallies, tally{counter: name, re: re})
		c.body = true
	}
	return errs
}

// compile checks one entry and compiles it.
func (a Assert) compile(key string, headers *[]string, compile LimitCompiler) (assertion, []Problem) {
	ca := assertion{absent: a.Absent}
	op, limits, err := a.Operator()
	if err != nil {
		return ca, []Problem{problem(key, "%v", err)}
	}
	ca.op = op
	var errs []Problem
	switch sources := countSet(a.JSON, a.Header, a.Body); {
	case sources != 1:
		return ca, []Problem{problem(key, "want exactly one of json, header or body")}
	case a.Body != "":
		ca.what = key + " body"
		var p Problem
		if ca.body, p = compilePattern(a.Body, key+".body"); p.Msg != "" {
			errs = append(errs, p)
		}
		if op != "" || a.Match != "" {
			errs = append(errs, problem(key, "body is a pattern that must match (or, with absent: true, must not); an operator or match is for json and header"))
		}
		return ca, errs
	}
	ex, err := Capture{JSON: a.JSON, Header: a.Header}.compile(-1, headers)
	if err != nil {
		return ca, []Problem{problem(key, "%v", err)}
	}
	ca.src = &ex
	ca.what = key + " " + cmp.Or(a.JSON, "header "+a.Header)
	if n := countSet(op, a.Match) + map[bool]int{true: 1}[a.Absent != nil]; n != 1 {
		return ca, []Problem{problem(key, "want one check of the value: an operator (%s), match, or absent", plan.Operators)}
	}
	var p Problem
	if ca.match, p = compilePattern(a.Match, key+".match"); p.Msg != "" {
		errs = append(errs, p)
	}
	if op != "" {
		errs = append(errs, ca.compileLimits(key+"."+op, limits, compile)...)
	}
	return ca, errs
}

// compileLimits compiles an operator's limits: literal ones once, those
// holding templates for rendering per reply.
func (ca *assertion) compileLimits(key string, limits []string, compile LimitCompiler) []Problem {
	if !slices.ContainsFunc(limits, tmpl.Has) {
		if _, err := plan.CompileLimit(ca.op, limits, false); err != nil && ca.op != plan.OpEQ && ca.op != plan.OpNE {
			return []Problem{problem(key, "%v", err)}
		}
		ca.cmp = plan.NewValueComparison(ca.op, limits)
		return nil
	}
	var errs []Problem
	for _, l := range limits {
		t, err := compile(l)
		if err != nil {
			errs = append(errs, problem(key, "%v", err))
		}
		ca.limits = append(ca.limits, t)
	}
	return errs
}

// countSet counts the non-empty strings.
func countSet(s ...string) int {
	n := 0
	for _, v := range s {
		if v != "" {
			n++
		}
	}
	return n
}

// WantsBody reports whether the checks read the reply's body.
func (c *Checks) WantsBody() bool { return c != nil && c.body }

// Templated reports whether some limit is rendered per reply: the
// sender must keep a template state.
func (c *Checks) Templated() bool {
	return c != nil && slices.ContainsFunc(c.asserts, func(a assertion) bool { return a.limits != nil })
}

// Counters are the counters the checks' tallies count.
func (c *Checks) Counters() []string {
	if c == nil {
		return nil
	}
	names := make([]string, len(c.tallies))
	for i, t := range c.tallies {
		names[i] = t.counter
	}
	return names
}

// Counter is where tallies count (a Recorder is one).
type Counter interface{ Count(name string, n int64) }

// Judge judges a reply (one whose status was expected): each tally's
// matches are counted at rec, and the first entry that does not hold is
// described by detail (ok false). st renders templated limits.
func (c *Checks) Judge(r *Reply, st *tmpl.State, rec Counter) (detail string, ok bool) {
	for _, t := range c.tallies {
		if n := countMatches(t.re, r.Body); n > 0 {
			rec.Count(t.counter, int64(n))
		}
	}
	for i := range c.asserts {
		if note, held := c.asserts[i].holds(r, st); !held {
			return c.asserts[i].what + ": " + note, false
		}
	}
	return "", true
}

// holds judges one entry; note says why it does not hold.
func (a *assertion) holds(r *Reply, st *tmpl.State) (note string, ok bool) {
	if a.body != nil {
		loc := a.body.FindIndex(r.Body)
		switch must := a.absent == nil || !*a.absent; {
		case must && loc == nil:
			return fmt.Sprintf("no match of %s", quotePattern(a.body)), false
		case !must && loc != nil:
			return fmt.Sprintf("matched %s: %s", quotePattern(a.body), plan.QuoteValue(string(r.Body[loc[0]:loc[1]]))), false
		}
		return "", true
	}
	v, found := a.src.read(r)
	switch wantAbsent := a.absent != nil && *a.absent; {
	case wantAbsent && found:
		return "got " + plan.QuoteValue(v) + ", want it absent", false
	case wantAbsent:
		return "", true
	case !found:
		return "absent", false
	case a.absent != nil: // absent: false, and it is there
		return "", true
	case a.match != nil && !a.match.MatchString(v):
		return fmt.Sprintf("got %s, want a match of %s", plan.QuoteValue(v), quotePattern(a.match)), false
	case a.match != nil:
		return "", true
	}
	ok, _, note = a.comparison(st).Judge(v)
	return note, ok
}

// comparison is the entry's comparison: compiled once, or with its
// limits rendered now.
func (a *assertion) comparison(st *tmpl.State) plan.ValueComparison {
	if a.limits == nil {
		return a.cmp
	}
	limits := make([]string, len(a.limits))
	for i, t := range a.limits {
		limits[i] = strings.TrimSpace(string(t.Append(nil, st)))
	}
	return plan.NewValueComparison(a.op, limits)
}

// quotePattern shows a pattern in a message, cut as values are.
func quotePattern(re *regexp.Regexp) string { return plan.QuoteValue(re.String()) }

// countMatches counts re's matches in b as FindAll finds them, without a
// slice per match (FindAllIndex allocates one each: a pattern matching
// every byte of a MiB would allocate tens of MiB). ReplaceAllFunc reuses
// its match buffer; what it builds is at most b's length.
func countMatches(re *regexp.Regexp, b []byte) int64 {
	var n int64
	re.ReplaceAllFunc(b, func([]byte) []byte { n++; return nil })
	return n
}
