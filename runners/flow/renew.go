package flow

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/benchtui/benchtui/runners/plan"
)

// Renew is a once step's `renew:`: when the session it opens (a token, an
// initialized session) is opened again. After is a time to live from the
// step's last success; On a condition on the replies of the later steps
// (a token refused). Either or both.
type Renew struct {
	After plan.Duration `yaml:"after"`
	On    *RenewOn      `yaml:"on"`
}

// RenewOn is a condition on a reply: it holds when any of its set fields
// does.
type RenewOn struct {
	// Status lists reply statuses (401, 403).
	Status []int `yaml:"status"`
	// Header is a reply header that must be present; with HeaderMatch, a
	// regular expression its first value must match.
	Header      string `yaml:"header"`
	HeaderMatch string `yaml:"header_match"`
	// Body is a regular expression matched against the first
	// MaxRenewBody bytes of the reply's body.
	Body string `yaml:"body"`
}

// Counters a flow with renew counts (steps[].counters), each written at 0
// when nothing happened.
const (
	// CounterRenewals counts renewals begun: the once steps run again
	// because their time to live ran out or a reply matched renew.on, and
	// each attempt after a backoff.
	CounterRenewals = "renewals"
	// CounterRenewalsFailed counts renewals whose once steps failed.
	CounterRenewalsFailed = "renewals_failed"
	// CounterRetries counts requests sent again after a renewal.
	CounterRetries = "retries"
)

// Counters are the counters a flow with renew counts.
func Counters() []string {
	return []string{CounterRenewals, CounterRenewalsFailed, CounterRetries}
}

// ExtraRetriedAttempt is the extra timing of a request's first attempt
// that a renewal retried (from its send to its reply): the attempt is no
// operation of the step, its retry is.
const ExtraRetriedAttempt = "retried_attempt"

// Limits of renew.
const (
	// MaxRenewBody is how much of a body renew.on.body reads.
	MaxRenewBody = 64 << 10
	// MaxRenewPattern bounds renew.on's regular expressions.
	MaxRenewPattern = 512
	// MinRenewAfter is the shortest time to live: renewals cannot storm.
	MinRenewAfter = time.Second
	// BackoffMin and BackoffMax bound the wait after a failed renewal:
	// the n-th in a row waits between half and all of min(BackoffMin·2ⁿ⁻¹,
	// BackoffMax).
	BackoffMin = time.Second
	BackoffMax = 30 * time.Second
)

// renewRule is a compiled renew.
type renewRule struct {
	after    time.Duration
	status   []int
	header   string
	headerRE *regexp.Regexp
	body     *regexp.Regexp
}

// watch is a renew rule that a later step's replies are checked against.
type watch struct {
	from   int  // the once step that renews
	header int  // index of the rule's header in the step's Headers, or -1
	body   bool // the rule reads the body
}

// compileRenew checks d.Renew of step i (key flow[i].renew) and compiles it.
func compileRenew(d Def, key string) (*renewRule, []Problem) {
	r := d.Renew
	if r == nil {
		return nil, nil
	}
	var errs []Problem
	if !d.Once {
		errs = append(errs, problem(key, "is for once steps (the session they open is what renews)"))
	}
	rule := &renewRule{after: r.After.D()}
	switch {
	case r.After.D() == 0 && r.On == nil:
		errs = append(errs, problem(key, "want after (a time to live), on (a reply that needs it), or both"))
	case r.After.D() != 0 && r.After.D() < MinRenewAfter:
		errs = append(errs, problem(key+".after", "at least %s", MinRenewAfter))
	}
	if r.On != nil {
		errs = append(errs, rule.compileOn(r.On, key+".on")...)
	}
	return rule, errs
}

func (rule *renewRule) compileOn(on *RenewOn, key string) []Problem {
	var errs []Problem
	if len(on.Status) == 0 && on.Header == "" && on.Body == "" {
		errs = append(errs, problem(key, "want status, header or body"))
	}
	for _, s := range on.Status {
		if s < 100 || s > 599 {
			errs = append(errs, problem(key+".status", "%d is not a status (100 to 599)", s))
		}
	}
	rule.status = on.Status
	if on.Header != "" && !httpguts.ValidHeaderFieldName(on.Header) {
		errs = append(errs, problem(key+".header", "%q is not a header name", on.Header))
	}
	rule.header = on.Header
	var p Problem
	if on.HeaderMatch != "" && on.Header == "" {
		errs = append(errs, problem(key+".header_match", "needs header: the header whose value it matches"))
	}
	if rule.headerRE, p = compilePattern(on.HeaderMatch, key+".header_match"); p.Msg != "" {
		errs = append(errs, p)
	}
	if rule.body, p = compilePattern(on.Body, key+".body"); p.Msg != "" {
		errs = append(errs, p)
	}
	return errs
}

// compilePattern compiles a renew.on pattern ("" : none).
func compilePattern(pattern, key string) (*regexp.Regexp, Problem) {
	if pattern == "" {
		return nil, Problem{}
	}
	if len(pattern) > MaxRenewPattern {
		return nil, problem(key, "%d bytes; at most %d", len(pattern), MaxRenewPattern)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, problem(key, "%v", err)
	}
	return re, Problem{}
}

// addWatches makes the steps after each renewing once step check their
// replies against its renew.on (the once steps among them excepted: they
// are what a renewal runs).
func (f *Flow) addWatches() {
	for from := range f.Steps {
		rule := f.Steps[from].renew
		if rule == nil || (len(rule.status) == 0 && rule.header == "" && rule.body == nil) {
			continue
		}
		for i := from + 1; i < len(f.Steps); i++ {
			s := &f.Steps[i]
			if s.Once {
				continue
			}
			w := watch{from: from, header: -1, body: rule.body != nil}
			if rule.header != "" {
				w.header = slices.IndexFunc(s.Headers, func(h string) bool { return strings.EqualFold(h, rule.header) })
				if w.header < 0 {
					s.Headers = append(s.Headers, rule.header)
					w.header = len(s.Headers) - 1
				}
			}
			s.watch = append(s.watch, w)
		}
	}
}

// renewFor is the once step whose renew.on the reply of step s matches
// (the earliest), or -1.
func (f *Flow) renewFor(s *Step, status int, r *Reply) int {
	for _, w := range s.watch {
		if f.Steps[w.from].renew.matches(status, r, w.header) {
			return w.from
		}
	}
	return -1
}

// matches reports whether a reply with status whose header (index h in
// r.Headers) and body r holds meets the rule's condition.
func (rule *renewRule) matches(status int, r *Reply, h int) bool {
	if status != 0 && slices.Contains(rule.status, status) {
		return true
	}
	if h >= 0 && h < len(r.Headers) && r.Headers[h] != "" {
		if rule.headerRE == nil || rule.headerRE.MatchString(r.Headers[h]) {
			return true
		}
	}
	return rule.body != nil && rule.body.Match(r.Body[:min(len(r.Body), MaxRenewBody)])
}

// Renews reports whether some step of f renews: the flow counts
// renewals and retries (Counters).
func (f *Flow) Renews() bool {
	return slices.ContainsFunc(f.Steps, func(s Step) bool { return s.renew != nil })
}

// renewDetail says why a request was not sent.
func renewDetail(step string, wait time.Duration) string {
	return fmt.Sprintf("the session of step %s could not be opened or renewed; not sent, backing off %s", step, wait.Round(time.Millisecond))
}
