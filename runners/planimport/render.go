package planimport

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/benchtui/benchtui/runners/plan"
)

// literal is text from the input as a plan's templated field (URL path
// and query, header value, body) sends it as is: a "{{" would start a
// template and a "${" a variable, so each is written as a template's
// quoted string.
func literal(s string) string {
	s = strings.ReplaceAll(s, "{{", `{{"{{"}}`)
	return strings.ReplaceAll(s, "${", `{{"$"}}{`)
}

// planRequest is a request as the plan writes it.
type planRequest struct {
	Method  string            `yaml:"method"`
	URL     string            `yaml:"url"`
	Headers map[string]string `yaml:"headers,omitempty"`
	Body    string            `yaml:"body,omitempty"`
}

type planHTTP struct {
	Requests           []planRequest `yaml:"requests"`
	InsecureSkipVerify bool          `yaml:"insecure_skip_verify,omitempty"`
}

type planLoad struct {
	Concurrency int `yaml:"concurrency"`
}

type planGroup struct {
	ID       string   `yaml:"id"`
	Title    string   `yaml:"title"`
	Runner   string   `yaml:"runner"`
	HTTP     planHTTP `yaml:"http"`
	Load     planLoad `yaml:"load"`
	Duration string   `yaml:"duration"`
}

type planDoc struct {
	Version int         `yaml:"version"`
	Groups  []planGroup `yaml:"groups"`
}

// Write writes imp as a plan: one http group of its requests, at
// concurrency 1 for 30 s (edit to taste), its secrets as ${VARS} listed
// in the plan's opening comment.
func Write(w io.Writer, imp *Imported) error {
	if len(imp.Requests) == 0 {
		return &Error{File: imp.File, Msg: "no requests to import"}
	}
	var sec secrets
	g := planGroup{ID: "imported", Title: "imported from " + imp.Source, Runner: "http",
		HTTP: planHTTP{InsecureSkipVerify: imp.Insecure}, Load: planLoad{Concurrency: 1}, Duration: "30s"}
	for i := range imp.Requests {
		r := &imp.Requests[i]
		if field, msg := r.check(); field != "" {
			return r.problem(imp.File, field, msg)
		}
		pr, err := sec.request(r)
		if err != nil {
			return r.problem(imp.File, "url", err.Error())
		}
		g.HTTP.Requests = append(g.HTTP.Requests, pr)
	}
	var body bytes.Buffer
	enc := yaml.NewEncoder(&body)
	enc.SetIndent(2)
	if err := enc.Encode(planDoc{Version: 1, Groups: []planGroup{g}}); err != nil {
		return err
	}
	out := append(header(imp, sec.vars), body.Bytes()...)
	if len(out) > plan.MaxPlanBytes {
		return &Error{File: imp.File, Msg: fmt.Sprintf("the plan would be %d bytes; a plan holds at most %d (import fewer requests)", len(out), plan.MaxPlanBytes)}
	}
	_, err := w.Write(out)
	return err
}

// header is the plan's opening comment: where it came from and the
// variables to set.
func header(imp *Imported, vars []secretVar) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Imported by benchtui from %s (requests: %d).\n", plan.Printable(imp.Source), len(imp.Requests))
	if len(vars) == 0 {
		b.WriteString("# No secrets were found in it.\n")
		return b.Bytes()
	}
	b.WriteString("# Its secrets are not written here: set these variables to them before running it:\n")
	for _, v := range vars {
		fmt.Fprintf(&b, "#   %s  (%s)\n", v.Name, strings.Join(v.Where, ", "))
	}
	return b.Bytes()
}

// request is r as the plan writes it, its secrets replaced.
func (s *secrets) request(r *Request) (planRequest, error) {
	u, err := s.url(r.URL, r.Where)
	if err != nil {
		return planRequest{}, err
	}
	pr := planRequest{Method: r.Method, URL: u, Body: s.body(r)}
	for _, h := range r.kept() {
		if pr.Headers == nil {
			pr.Headers = map[string]string{}
		}
		pr.Headers[h.Name] = s.header(h, r.Where)
	}
	return pr, nil
}

// header is h's value for the plan: a secret's a ${VAR} (an
// Authorization's scheme kept: "Bearer ${AUTHORIZATION}").
func (s *secrets) header(h Header, where string) string {
	if !isSecretName(h.Name) {
		return literal(h.Value)
	}
	where += " header " + h.Name
	if strings.EqualFold(h.Name, "authorization") || strings.EqualFold(h.Name, "proxy-authorization") {
		if scheme, cred, ok := strings.Cut(h.Value, " "); ok && scheme != "" && strings.TrimSpace(cred) != "" {
			return literal(scheme) + " " + s.ref(h.Name, strings.TrimSpace(cred), where)
		}
	}
	return s.ref(h.Name, h.Value, where)
}

// url is raw for the plan: its password and token-like query values
// ${VARS}, the rest as is.
func (s *secrets) url(raw, where string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%q: %v", clip(raw), err)
	}
	if u.Host == "" || strings.ContainsAny(u.Host, "{}$") {
		return "", fmt.Errorf("%q has no host a plan can dial", clip(raw))
	}
	var b strings.Builder
	b.WriteString(u.Scheme + "://")
	if u.User != nil {
		b.WriteString(u.User.Username())
		if pw, ok := u.User.Password(); ok {
			b.WriteString(":" + s.ref("URL_PASSWORD", pw, where+" URL password"))
		}
		b.WriteString("@")
	}
	b.WriteString(u.Host)
	b.WriteString(literal(u.EscapedPath()))
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteString("?" + s.query(u.RawQuery, where+" query"))
	}
	return b.String(), nil
}

// query is a raw query (or form) with the values of token-like
// parameters ${VARS}; where says whose, for the comment.
func (s *secrets) query(raw, where string) string {
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if ok && v != "" && isSecretName(name) {
			parts[i] = literal(k) + "=" + s.ref(name, v, where+" "+name)
			continue
		}
		parts[i] = literal(p)
	}
	return strings.Join(parts, "&")
}

// body is r's body for the plan: a form's password-like fields ${VARS}.
func (s *secrets) body(r *Request) string {
	body := string(r.Body)
	if !isForm(r) {
		return literal(body)
	}
	return s.query(body, r.Where+" form field")
}

// isForm says whether r's body is an URL-encoded form.
func isForm(r *Request) bool {
	for _, h := range r.Headers {
		if strings.EqualFold(h.Name, "content-type") {
			return strings.HasPrefix(strings.ToLower(strings.TrimSpace(h.Value)), "application/x-www-form-urlencoded")
		}
	}
	return false
}
