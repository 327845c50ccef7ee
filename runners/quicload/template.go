package quicload

import (
	"errors"
	"strings"

	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// templates are the section's templated fields: the HTTP/3 URL's path and
// query, header values and body, and the stream mode's request. A field
// without a template is nil (headers: absent) and is sent as written.
type templates struct {
	url, body, request *tmpl.Template
	headers            map[string]*tmpl.Template
	data               *tmpl.Source
	step               []string  // the step's values of the group's vars, set in Prepare
	seq                *tmpl.Seq // {{seq}}: the group's operations, numbered
}

// rendered is one operation's rendered fields, in a worker's reused
// buffers; the URL and header values are strings for net/http.
type rendered struct {
	st                 *tmpl.State
	url                string
	body, request, tmp []byte
	headers            map[string]string
}

// errTemplate is a rendered URL or header value that cannot be sent.
var errTemplate = errors.New("a rendered template cannot go on the wire")

// templateFields are s's fields but headers that may hold templates.
func (s *Spec) templateFields() map[string]string {
	return map[string]string{"url": s.URL, "body": s.Body, "request": s.Request}
}

// compileTemplates compiles s's templates with g's data file (g may be
// nil); nil when s has none and g no data file.
func compileTemplates(s *Spec, g *plan.Group) (*templates, error) {
	c, err := plan.CompileFields(g, s.templateFields(), s.Headers)
	if c == nil || err != nil {
		return nil, err
	}
	f := c.Fields
	return &templates{url: f["url"], body: f["body"], request: f["request"], headers: c.Header(), data: c.Data, seq: tmpl.NewSeq()}, nil
}

// render fills out for the worker's next operation; exhausted says the
// data file's unique rows ran out.
func (t *templates) render(out *rendered) (exhausted bool, err error) {
	if out.st == nil {
		out.st, out.headers = tmpl.NewState(t.data, t.seq), map[string]string{}
		out.st.SetStep(t.step)
	}
	if !out.st.Next() {
		return true, nil
	}
	if t.url != nil {
		out.tmp = t.url.Append(out.tmp[:0], out.st)
		if strings.ContainsFunc(string(out.tmp), func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			return false, errTemplate
		}
		out.url = string(out.tmp)
	}
	if t.body != nil {
		out.body = t.body.Append(nil, out.st) // the transport may read it after the reply
	}
	if t.request != nil {
		out.request = t.request.Append(out.request[:0], out.st)
	}
	for k, v := range t.headers {
		out.tmp = v.Append(out.tmp[:0], out.st)
		if !plan.ValidHeaderValue(out.tmp) {
			return false, errTemplate
		}
		out.headers[k] = string(out.tmp)
	}
	return false, nil
}
