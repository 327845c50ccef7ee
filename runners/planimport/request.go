package planimport

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/benchtui/benchtui/runners/plan"
)

// Limits of an import.
const (
	// MaxInputBytes bounds a file read (a HAR holds the responses too).
	MaxInputBytes = 64 << 20
	// MaxRequests bounds the requests of a plan.
	MaxRequests = 1000
	// MaxBodyBytes bounds a request's body.
	MaxBodyBytes = 1 << 20
)

// Header is one request header as the input had it.
type Header struct{ Name, Value string }

// Request is one request read from an input.
type Request struct {
	Method, URL string
	Headers     []Header
	Body        []byte
	// Where says where it came from ("line 4", "log.entries[2]"), for
	// errors and the plan's comment.
	Where string
	// line is where it starts in its file, 0 when lines do not apply: an
	// error then names the field after Where.
	line int
}

// problem is r's problem with its field as an Error of file.
func (r *Request) problem(file, field, msg string) *Error {
	if r.line > 0 {
		return &Error{File: file, Line: r.line, Field: field, Msg: msg}
	}
	return &Error{File: file, Field: r.Where + "." + field, Msg: msg}
}

// Imported is what an input held.
type Imported struct {
	// Source says what was imported ("har session.har"), for the plan's
	// title.
	Source string
	// File names the input in errors: a file's path, or "curl".
	File     string
	Requests []Request
	// Insecure: the input asked not to verify TLS certificates (curl -k).
	Insecure bool
}

// Error is an input's problem: its file (or "curl"), line (0 when none
// applies), field and what is wrong. Its text has control bytes escaped.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Msg)
	return plan.Printable(b.String())
}

// dropHeaders are headers a plan's request does not carry: the client
// sets them from the URL and the body, or they belong to one connection.
var dropHeaders = map[string]bool{
	"host": true, "content-length": true, "connection": true, "transfer-encoding": true,
	"keep-alive": true, "upgrade": true, "te": true, "proxy-connection": true,
}

// check says what is wrong with r for a plan, "" when nothing is: its
// field and message.
func (r *Request) check() (field, msg string) {
	switch {
	case r.Method == "" || strings.ContainsFunc(r.Method, func(c rune) bool { return c < 'A' || c > 'Z' }):
		return "method", fmt.Sprintf("%q is not a method (upper-case letters)", r.Method)
	case !strings.HasPrefix(r.URL, "http://") && !strings.HasPrefix(r.URL, "https://"):
		return "url", fmt.Sprintf("%q is not an http:// or https:// URL", clip(r.URL))
	case len(r.Body) > MaxBodyBytes:
		return "body", fmt.Sprintf("%d bytes; at most %d", len(r.Body), MaxBodyBytes)
	case !utf8.Valid(r.Body):
		return "body", "not UTF-8 text: a plan's body is text, binary bodies are not imported"
	case strings.ContainsFunc(r.URL, isControl):
		return "url", "holds control characters"
	}
	for _, h := range r.Headers {
		if badHeaderName(h.Name) {
			return "headers", fmt.Sprintf("%q is not a header name", clip(h.Name))
		}
		if strings.ContainsFunc(h.Value, func(c rune) bool { return isControl(c) && c != '\t' }) {
			return "headers." + h.Name, "the value holds control characters"
		}
	}
	return "", ""
}

func isControl(r rune) bool { return r < ' ' || r == 0x7f }

// clip shortens s for a message.
func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:77] + "..."
}

// kept are r's headers without those dropHeaders lists and HTTP/2's
// pseudo-headers, those of one name joined (Cookie with "; ").
func (r *Request) kept() []Header {
	var out []Header
	at := map[string]int{}
	for _, h := range r.Headers {
		low := strings.ToLower(h.Name)
		if dropHeaders[low] || strings.HasPrefix(h.Name, ":") {
			continue
		}
		if i, ok := at[low]; ok {
			sep := ", "
			if low == "cookie" {
				sep = "; "
			}
			out[i].Value += sep + h.Value
			continue
		}
		at[low] = len(out)
		out = append(out, h)
	}
	return out
}

// badHeaderName says whether name cannot be a header's: empty, or with a
// space, a colon, a control or a non-ASCII character.
func badHeaderName(name string) bool {
	return name == "" || strings.ContainsFunc(name, func(c rune) bool { return c <= ' ' || c >= 0x7f || c == ':' })
}
