package pgload

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/theory/jsonpath"

	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/probe"
)

// Sources of a verify entry beside sql: an HTTP reply, a command, a probe
// of the group. Their reads are the probe package's (the same requests,
// commands and bounds as the `probes:` section's).

// defaultReadTimeout bounds one read of an http or command entry without
// a timeout of its own.
const defaultReadTimeout = 10 * time.Second

// ValueExitStatus is the `value:` of a command entry that compares the
// command's exit status instead of its stdout.
const ValueExitStatus = "exit_status"

// sources names the sources an entry gives, in the plan's words.
func (v Verify) sources() []string {
	var given []string
	for _, s := range []struct {
		name string
		set  bool
	}{{"sql", v.SQL != ""}, {"http", v.HTTP != nil}, {"command", len(v.Command) > 0}, {"probe", v.Probe != ""}} {
		if s.set {
			given = append(given, s.name)
		}
	}
	return given
}

// sourceProblems reports the problems of the entry's source: exactly one
// of sql, http, command and probe, and its own keys.
func (v Verify) sourceProblems(at plan.Pos, k string, sc verifyScope) []error {
	bad := func(field, format string, args ...any) []error {
		return []error{plan.Errorf(at, k+"."+field, format, args...)}
	}
	given := v.sources()
	var errs []error
	switch {
	case len(given) == 0:
		return bad("sql", "want a source: sql (with dsn), http, command or probe")
	case len(given) > 1:
		return bad(given[1], "give exactly one of sql, http, command and probe, got %s", strings.Join(given, " and "))
	case v.DSN != "" && given[0] != "sql":
		errs = append(errs, bad("dsn", "dsn goes with sql, not %s", given[0])...)
	case v.Value != "" && given[0] != "command":
		errs = append(errs, bad("value", "value goes with command, not %s", given[0])...)
	}
	switch t := v.Timeout.D(); {
	case t != 0 && given[0] == "probe":
		errs = append(errs, bad("timeout", "a probe is read within its own timeout (probes[].timeout)")...)
	case t < 0 || t > verifyTimeout:
		errs = append(errs, bad("timeout", "want at most %s, got %s", verifyTimeout, t)...)
	}
	switch given[0] {
	case "sql":
		errs = append(errs, v.sqlProblems(at, k, sc.hasDSN)...)
	case "http":
		errs = append(errs, v.HTTP.problems(at, k+".http")...)
	case "command":
		if strings.TrimSpace(v.Command[0]) == "" {
			errs = append(errs, bad("command", "the program (command[0]) is empty")...)
		}
		if v.Value != "" && v.Value != ValueExitStatus {
			errs = append(errs, bad("value", "want %s (compare the exit status) or nothing (compare stdout), got %q", ValueExitStatus, v.Value)...)
		}
	case "probe":
		if !slices.Contains(sc.probes, v.Probe) {
			errs = append(errs, bad("probe", "no probe %q in the group's probes%s", v.Probe, probesNamed(sc.probes))...)
		}
	}
	return errs
}

// probesNamed names a group's probes for a message.
func probesNamed(names []string) string {
	if len(names) == 0 {
		return " (it has none)"
	}
	return " (it has: " + strings.Join(names, ", ") + ")"
}

// problems reports the problems of an http source at at, under key.
func (h *VerifyHTTP) problems(at plan.Pos, key string) []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, plan.Errorf(at, key+"."+field, format, args...))
	}
	if u, err := url.Parse(h.URL); strings.Contains(h.URL, "{{") {
		// filled in after the step; checked when it is read
	} else if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("url", "want an http:// or https:// URL, got %q", plan.RedactURLs(h.URL))
	}
	if h.Method != "" && !validMethod(h.Method) {
		bad("method", "%q is no HTTP method", h.Method)
	}
	if h.JSON != "" {
		if _, err := jsonpath.Parse(h.JSON); err != nil {
			bad("json", "%q is no RFC 9535 JSONPath: %v", h.JSON, err)
		}
	}
	for i, code := range h.ExpectStatus {
		if code < 100 || code > 599 {
			bad(fmt.Sprintf("expect_status[%d]", i), "want an HTTP status from 100 to 599, got %d", code)
		}
	}
	return errs
}

// validMethod reports whether m is an HTTP method token of capitals.
func validMethod(m string) bool {
	if len(m) > 20 {
		return false
	}
	for _, c := range m {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return m != ""
}

// defaultName names an entry without a name by its source.
func (v Verify) defaultName() string {
	switch {
	case v.HTTP != nil:
		name := v.HTTP.method() + " " + plan.RedactURLs(v.HTTP.URL)
		if v.HTTP.JSON != "" {
			name += " " + v.HTTP.JSON
		}
		return abbreviate(name)
	case len(v.Command) > 0:
		name := strings.Join(v.Command, " ")
		if v.Value != "" {
			name += " (" + v.Value + ")"
		}
		return abbreviate(name)
	case v.Probe != "":
		return "probe " + v.Probe
	}
	return abbreviate(v.SQL)
}

func (h *VerifyHTTP) method() string {
	if h.Method == "" {
		return http.MethodGet
	}
	return h.Method
}

// readTimeout bounds one read of the entry's http or command source.
func (v Verify) readTimeout() time.Duration {
	if t := v.Timeout.D(); t > 0 {
		return t
	}
	if v.SQL != "" {
		return verifyTimeout
	}
	return defaultReadTimeout
}

// readHTTP sends the entry's request and returns its value: the first
// node its JSONPath selects, as text, or its status code.
func (h *VerifyHTTP) read(ctx context.Context) (string, error) {
	reply, err := probe.Fetch(ctx, probe.Request{
		Method: h.method(), URL: h.URL, Headers: h.Headers, Body: h.Body, Accept: "application/json",
	})
	if err != nil {
		return "", err
	}
	if !h.accepts(reply.Status) {
		return "", fmt.Errorf("%s %s: status %d, want %s", h.method(), plan.RedactURLs(h.URL), reply.Status, h.wanted())
	}
	if h.JSON == "" {
		return strconv.Itoa(reply.Status), nil
	}
	path, err := jsonpath.Parse(h.JSON)
	if err != nil {
		return "", fmt.Errorf("json: %w", err)
	}
	node, err := probe.JSONNode(reply.Body, path, h.JSON)
	if err != nil {
		return "", err
	}
	return probe.NodeText(node), nil
}

// accepts reports whether status is one the entry accepts.
func (h *VerifyHTTP) accepts(status int) bool {
	switch {
	case len(h.ExpectStatus) > 0:
		return slices.Contains(h.ExpectStatus, status)
	case h.JSON != "":
		return status/100 == 2
	}
	return true
}

func (h *VerifyHTTP) wanted() string {
	if len(h.ExpectStatus) == 0 {
		return "2xx"
	}
	codes := make([]string, len(h.ExpectStatus))
	for i, c := range h.ExpectStatus {
		codes[i] = strconv.Itoa(c)
	}
	return strings.Join(codes, " or ")
}

// readCommand runs the entry's command and returns its value: its
// trimmed stdout, or with value: exit_status its exit status. An exit
// status other than 0 fails a stdout entry, with its stderr's first line.
func (v Verify) readCommand(ctx context.Context) (string, error) {
	res, err := probe.RunCommand(ctx, v.Command)
	if err != nil {
		return "", err
	}
	if v.Value == ValueExitStatus {
		return strconv.Itoa(res.ExitStatus), nil
	}
	if err := res.Failure(v.Command[0]); err != nil {
		return "", err
	}
	return strings.TrimSpace(res.Stdout), nil
}

// readProbe reads the group's probe named by the entry once more.
func (v Verify) readProbe(ctx context.Context, env verifyEnv) (string, error) {
	i := slices.IndexFunc(env.probes, func(p plan.Probe) bool { return p.Name == v.Probe })
	if i < 0 {
		return "", fmt.Errorf("no probe %q in the group", v.Probe)
	}
	got, err := probe.ReadOnce(ctx, env.probes[i], env.embeddedDSN)
	if err != nil {
		return "", fmt.Errorf("probe %s: %w", v.Probe, err)
	}
	return strconv.FormatFloat(got, 'g', -1, 64), nil
}
