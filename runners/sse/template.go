package sse

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// templates are the connect request's templated URL and header values,
// rendered for every connect of a subscriber ({{seq}} numbers the
// group's connects, seq).
type templates struct {
	url     *tmpl.Template // nil when the URL has no template
	headers map[string]*tmpl.Template
	data    *tmpl.Source
	seq     *tmpl.Seq
}

// errTemplate is a rendered URL or header value that cannot go on the
// wire; the connect is not sent and counts as an error of kind template.
var errTemplate = errors.New("a rendered template cannot go on the wire")

// errExhausted is a connect for which the data file's unique rows ran out.
var errExhausted = errors.New("the data file's unique rows ran out")

// templateFields are the section's fields but headers that may hold
// templates.
func (s *Spec) templateFields() map[string]string {
	return map[string]string{"url": s.URL}
}

// compileTemplates compiles s's templates with g's data file (g may be
// nil), reading vars (what s's flow captures); nil when s has none, g no
// data file and s no flow.
func compileTemplates(s *Spec, g *plan.Group, vars []string) (*templates, error) {
	c, err := plan.CompileFieldsVars(g, s.templateFields(), s.Headers, vars)
	switch {
	case err != nil:
		return nil, err
	case c == nil && len(s.Flow) == 0:
		return nil, nil
	case c == nil:
		return &templates{seq: tmpl.NewSeq()}, nil // the flow's variables need a state
	}
	return &templates{url: c.Fields["url"], headers: c.Header(), data: c.Data, seq: tmpl.NewSeq()}, nil
}

// render fills in req's URL and headers for st's current connect
// (started by the subscriber: State.Next).
func (t *templates) render(req *http.Request, st *tmpl.State, buf []byte) ([]byte, error) {
	if t.url != nil {
		buf = t.url.Append(buf[:0], st)
		u, err := url.Parse(string(buf))
		if err != nil || !plan.ValidRequestTarget([]byte(u.RequestURI())) {
			return buf, fmt.Errorf("url: %w", errTemplate)
		}
		req.URL, req.Host = u, u.Host
	}
	for k, v := range t.headers {
		buf = v.Append(buf[:0], st)
		if !plan.ValidHeaderValue(buf) {
			return buf, fmt.Errorf("header %s: %w", k, errTemplate)
		}
		req.Header.Set(k, string(buf))
	}
	return buf, nil
}
