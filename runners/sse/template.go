package sse

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// templates are the connect request's templated URL and header values,
// rendered for every connect of a subscriber ({{seq}} counts its
// connects).
type templates struct {
	url     *tmpl.Template // nil when the URL has no template
	headers map[string]*tmpl.Template
	data    *tmpl.Source
}

// errTemplate is a rendered URL or header value that cannot go on the
// wire; the connect is not sent and counts as an error of kind template.
var errTemplate = errors.New("a rendered template cannot go on the wire")

// errExhausted is a connect for which the data file's unique rows ran out.
var errExhausted = errors.New("the data file's unique rows ran out")

// templateFields are the section's fields that may hold templates.
func (s *Spec) templateFields(key string) map[string]string {
	f := map[string]string{key + ".url": s.URL}
	for k, v := range s.Headers {
		f[key+".headers."+k] = v
	}
	return f
}

// compileTemplates compiles s's templates with g's data file (g may be
// nil); nil when s has none.
func compileTemplates(s *Spec, g *plan.Group) (*templates, error) {
	if g == nil {
		g = &plan.Group{}
	}
	t := &templates{headers: map[string]*tmpl.Template{}}
	var errs []error
	if tmpl.Has(s.URL) {
		c, err := g.Template(plan.Pos{}, "url", s.URL)
		t.url, errs = c, append(errs, err)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		if tmpl.Has(s.Headers[k]) {
			c, err := g.Template(plan.Pos{}, "headers."+k, s.Headers[k])
			t.headers[k], errs = c, append(errs, err)
		}
	}
	if g.Table != nil {
		t.data = tmpl.NewSource(g.Table, g.Data.Mode)
	}
	if t.url == nil && len(t.headers) == 0 && t.data == nil {
		return nil, errors.Join(errs...)
	}
	return t, errors.Join(errs...)
}

// render fills in req's URL and headers for st's next connect.
func (t *templates) render(req *http.Request, st *tmpl.State, buf []byte) ([]byte, error) {
	if !st.Next() {
		return buf, errExhausted
	}
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
