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
