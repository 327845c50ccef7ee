package flow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/theory/jsonpath"
	"golang.org/x/net/http/httpguts"
)

// Capture is one entry of a flow step's `capture:` map: where in the
// step's reply the variable's value is. Exactly one field is set.
type Capture struct {
	// Header is a response header's name; its first value is captured.
	Header string `yaml:"header"`
	// JSON is an RFC 9535 JSONPath into the reply's body ($.result.session);
	// the first node it selects is captured: a string as it is, anything
	// else as its JSON text.
	JSON string `yaml:"json"`
	// Regex is a regular expression (RE2 syntax) matched against the body;
	// its first group is captured, or the whole match when it has none.
	// Postgres flows match it against the first column of the first row.
	Regex string `yaml:"regex"`
	// Column is a Postgres statement's result column; the first row's
	// value is captured.
	Column string `yaml:"column"`
}

// Limits of captures: what a hostile server can make a worker keep.
const (
	// MaxBodyBytes is the most of a reply's body kept for captures; the
	// rest is read and dropped, and a JSON body cut there fails to parse.
	MaxBodyBytes = 1 << 20
	// MaxValueBytes is the longest value a capture takes; a longer one is a
	// failed capture.
	MaxValueBytes = 8 << 10
	// MaxSteps bounds a flow's steps.
	MaxSteps = 64
	// MaxCaptures bounds a step's captures.
	MaxCaptures = 32
)

var validVar = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// extractor is a compiled capture into variable v.
type extractor struct {
	v      int
	header int // index in the step's Headers, else -1
	path   *jsonpath.Path
	re     *regexp.Regexp
	column string
}

// compile checks c and compiles it for variable v; headers gathers the
// header names the step's replies must keep.
func (c Capture) compile(v int, headers *[]string) (extractor, error) {
	set := 0
	for _, f := range []string{c.Header, c.JSON, c.Regex, c.Column} {
		if f != "" {
			set++
		}
	}
	if set != 1 {
		return extractor{}, fmt.Errorf("want exactly one of header, json, regex or column")
	}
	ex := extractor{v: v, header: -1, column: c.Column}
	var err error
	switch {
	case c.Header != "":
		if !httpguts.ValidHeaderFieldName(c.Header) {
			return extractor{}, fmt.Errorf("header: %q is not a header name", c.Header)
		}
		ex.header = slices.IndexFunc(*headers, func(h string) bool { return strings.EqualFold(h, c.Header) })
		if ex.header < 0 {
			*headers = append(*headers, c.Header)
			ex.header = len(*headers) - 1
		}
	case c.JSON != "":
		if ex.path, err = jsonpath.Parse(c.JSON); err != nil {
			return extractor{}, fmt.Errorf("json: %v", err)
		}
	case c.Regex != "":
		if ex.re, err = regexp.Compile(c.Regex); err != nil {
			return extractor{}, fmt.Errorf("regex: %v", err)
		}
		if ex.re.NumSubexp() > 1 {
			return extractor{}, fmt.Errorf("regex: want at most one group ( ), got %d", ex.re.NumSubexp())
		}
	}
	return ex, nil
}

// extract finds the capture's value in r; ok is false when it is not
// there (or not fit to keep: too long, not UTF-8).
func (ex *extractor) extract(r *Reply) (string, bool) {
	v, ok := ex.read(r)
	return v, ok && len(v) <= MaxValueBytes && utf8.ValidString(v)
}

// read finds the value in r as it is; ok is false when it is not there.
func (ex *extractor) read(r *Reply) (string, bool) {
	var v string
	switch {
	case ex.header >= 0:
		if ex.header >= len(r.Headers) || r.Headers[ex.header] == "" {
			return "", false
		}
		v = r.Headers[ex.header]
	case ex.path != nil:
		var ok bool
		if v, ok = r.jsonValue(ex.path); !ok {
			return "", false
		}
	case ex.re != nil:
		m := ex.re.FindSubmatch(r.Body)
		if m == nil {
			return "", false
		}
		v = string(m[len(m)-1])
	case ex.column != "":
		i := slices.Index(r.Columns, ex.column)
		if i < 0 || i >= len(r.Row) {
			return "", false
		}
		v = r.Row[i]
	}
	return v, true
}

// Reply is what a step's reply offers its captures. The runner that sent
// the step fills it; the flow reads it before the next step.
type Reply struct {
	// Headers are the values of the step's Headers, in order ("" when
	// absent).
	Headers []string
	// Body is up to MaxBodyBytes of the reply's body, when the step's
	// captures read it (Step.WantsBody).
	Body []byte
	// Columns and Row are a Postgres statement's result columns and its
	// first row, as text (Row nil when it returned none).
	Columns, Row []string
	decoded      any  // Body parsed as JSON, once per reply
	parsed       bool // decoded is set (or Body is not JSON)
}

// Reset empties r for the next reply, keeping its buffers.
func (r *Reply) Reset() {
	clear(r.Headers)
	r.Headers = r.Headers[:0]
	r.Body = r.Body[:0]
	r.Columns, r.Row = r.Columns[:0], r.Row[:0]
	r.decoded, r.parsed = nil, false
}

// jsonValue is the first node p selects in the body.
func (r *Reply) jsonValue(p *jsonpath.Path) (string, bool) {
	if !r.parsed {
		r.parsed = true
		r.decoded, _ = DecodeJSON(r.Body)
	}
	if r.decoded == nil {
		return "", false
	}
	node, ok := FirstNode(r.decoded, p)
	if !ok {
		return "", false
	}
	switch n := node.(type) {
	case string:
		return n, true
	case nil:
		return "", false
	default:
		b, err := json.Marshal(n)
		return string(b), err == nil
	}
}

// DecodeJSON parses body as one JSON value, numbers as json.Number (so
// 64-bit ids stay exact); ok is false when body is not JSON.
func DecodeJSON(body []byte) (v any, ok bool) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

// FirstNode is the first node p selects in doc (a DecodeJSON value);
// ok is false when it selects none.
func FirstNode(doc any, p *jsonpath.Path) (node any, ok bool) {
	nodes := p.Select(doc)
	if len(nodes) == 0 {
		return nil, false
	}
	return nodes[0], true
}
