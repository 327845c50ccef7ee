package httpload

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// reqTemplate is a request whose URL, header values or body hold template
// actions, compiled. A request without any has none and takes the
// untemplated path unchanged.
type reqTemplate struct {
	url     *tmpl.Template // the whole URL, for net/http
	target  *tmpl.Template // the path and query after the host, for the lean client
	headers []headerTemplate
	body    *tmpl.Template
}

type headerTemplate struct {
	name  string
	value *tmpl.Template
}

// templated reports whether r holds a template action.
func templated(r *Request) bool {
	if tmpl.Has(r.URL) || tmpl.Has(r.Body) {
		return true
	}
	for _, v := range r.Headers {
		if tmpl.Has(v) {
			return true
		}
	}
	return false
}

// templateFields are r's fields that may hold templates, by plan key.
func templateFields(r *Request, key string) map[string]string {
	return plan.RequestFields(key, map[string]string{"url": r.URL, "body": r.Body}, r.Headers)
}

// TemplateProblems compiles every template of s against g's data file and
// reports each bad one at pos, naming its field.
func (s *Spec) TemplateProblems(g *plan.Group, pos plan.Pos, key string) []error {
	var errs []error
	reqs, list := s.sent()
	var f *flow.Flow
	if list == "flow" {
		if f, _ = flow.Compile(flowDefs(reqs), columns(g)); f == nil {
			return nil // FlowProblems says why
		}
	}
	for i := range reqs {
		var vars []string
		if f != nil {
			vars = f.VarsBefore(i)
		}
		errs = append(errs, g.TemplatesVars(pos, templateFields(&reqs[i], fmt.Sprintf("%s.%s[%d]", key, list, i)), vars)...)
	}
	return errs
}

// compileRequest compiles r's templates; g (nil: none) gives the data
// file's columns. It returns nil for a request without templates.
func compileRequest(r *Request, g *plan.Group, vars []string) (*reqTemplate, error) {
	if !templated(r) {
		return nil, nil
	}
	if g == nil {
		g = &plan.Group{}
	}
	if tmpl.HostTemplated(r.URL) || !strings.Contains(r.URL, "://") {
		return nil, fmt.Errorf("url %s: %s", plan.RedactURLs(r.URL), tmpl.HostTemplatedProblem)
	}
	t := &reqTemplate{}
	var err error
	compile := func(src string) *tmpl.Template {
		c, e := g.TemplateVars(plan.Pos{}, "", src, vars)
		if e != nil && err == nil {
			err = e
		}
		return c
	}
	t.url, t.body = compile(r.URL), compile(r.Body)
	for _, name := range slices.Sorted(maps.Keys(r.Headers)) {
		t.headers = append(t.headers, headerTemplate{name: name, value: compile(r.Headers[name])})
	}
	if err != nil {
		return t, err
	}
	t.target, err = requestTarget(r.URL, t.url)
	return t, err
}

// requestTarget is the path and query of a URL's compiled template u (a
// leading "/" added when it has none), cut from u rather than compiled
// again: the text of a field is compiled only as the plan's field, where
// the values of its ${VAR}s are known to be data.
func requestTarget(rawURL string, u *tmpl.Template) (*tmpl.Template, error) {
	_, rest, _ := strings.Cut(rawURL, "://")
	cut := len(rawURL) - len(rest) + strings.IndexAny(rest+"/", "/?#")
	slash := ""
	if cut == len(rawURL) || rawURL[cut] != '/' {
		slash = "/"
	}
	return u.SwapPrefix(rawURL[:cut], slash)
}

// leanTemplate is a templated request's wire form for the lean client:
// its static parts kept, its fields rendered per request.
type leanTemplate struct {
	t      *reqTemplate
	method string
	host   string // hostLines
	length bool   // a Content-Length header
	close  bool   // Connection: close
}

// render writes the wire bytes of s's current request into the worker's
// reused buffers; ok is false, and nothing may be sent, when a rendered
// target or header value cannot go on the wire (a space, CR or LF).
func (lt *leanTemplate) render(b *buffers, s *tmpl.State) (wire []byte, ok bool) {
	body := lt.t.body.Append(b.body[:0], s)
	w := append(append(b.wire[:0], lt.method...), ' ')
	n := len(w)
	w = lt.t.target.Append(w, s)
	ok = plan.ValidRequestTarget(w[n:])
	w = append(w, lt.host...)
	for _, h := range lt.t.headers {
		w = append(append(w, h.name...), ": "...)
		n = len(w)
		w = h.value.Append(w, s)
		ok = ok && plan.ValidHeaderValue(w[n:])
		w = append(w, "\r\n"...)
	}
	if lt.length {
		w = strconv.AppendInt(append(w, "Content-Length: "...), int64(len(body)), 10)
		w = append(w, "\r\n"...)
	}
	if lt.close {
		w = append(w, connectionClose...)
	}
	w = append(append(w, "\r\n"...), body...)
	b.wire, b.body = w, body
	return w, ok
}

// buffers are a worker's reused render buffers.
type buffers struct{ wire, body []byte }

// headerList is t's headers; none for a nil t.
func (t *reqTemplate) headerList() []headerTemplate {
	if t == nil {
		return nil
	}
	return t.headers
}
