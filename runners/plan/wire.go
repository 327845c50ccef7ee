package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// RequestProblems reports what in an HTTP request's method and headers
// cannot go on the wire as written: a CR or LF in a header value would end
// the header early and let a plan smuggle another header or request.
func RequestProblems(method string, headers map[string]string) []string {
	var out []string
	if method != "" && !isToken(method) {
		out = append(out, fmt.Sprintf("method %q: want a token such as GET or POST (no spaces or control characters)", method))
	}
	for _, name := range slices.Sorted(maps.Keys(headers)) {
		if !httpguts.ValidHeaderFieldName(name) {
			out = append(out, fmt.Sprintf("header name %q: want a token (no spaces, colons or control characters)", name))
		}
		if v := headers[name]; !httpguts.ValidHeaderFieldValue(v) {
			out = append(out, fmt.Sprintf("header %s: its value holds a control character (CR, LF or NUL)", Printable(name)))
		}
	}
	return out
}

func isToken(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return !httpguts.IsTokenRune(r) })
}

// ValidHeaderValue reports whether a rendered header value may go on the
// wire: no control character but horizontal tab (so no CR, LF or NUL), as
// httpguts.ValidHeaderFieldValue, over bytes rendered per request.
func ValidHeaderValue(v []byte) bool {
	for _, c := range v {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// ValidRequestTarget reports whether a rendered request target (a URL's
// path and query) may go on an HTTP/1.1 request line: no space and no
// control character, which would end the line or the target early.
func ValidRequestTarget(v []byte) bool {
	for _, c := range v {
		if c <= ' ' || c == 0x7f {
			return false
		}
	}
	return len(v) > 0
}
