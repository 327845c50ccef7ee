package httpload

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// seen is a loopback server that keeps one value of every request (a
// header or the body) and counts the requests.
type seen struct {
	mu   sync.Mutex
	vals []string
}

func seenServer(t *testing.T, pick func(r *http.Request, body string) string) (*httptest.Server, *seen) {
	t.Helper()
	s := &seen{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.vals = append(s.vals, pick(r, string(b)))
		s.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv, s
}

func (s *seen) values() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.vals...)
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// uuidRequests is TestTemplatedUUIDsAreDistinct's request count per client.
const uuidRequests = 400

// TestTemplatedUUIDsAreDistinct: 400 requests of 8 workers, through each
// client, carry 800 distinct version 4 UUIDs in the URL and the body: each
// request is rendered afresh and sent as rendered. The UUIDs' uniqueness
// at volume (40,000 over 8 workers' states) is runners/tmpl's
// TestUUIDsAreDistinct, without a server's cost per request.
func TestTemplatedUUIDsAreDistinct(t *testing.T) {
	t.Parallel()
	for _, client := range []string{"auto", "net/http"} {
		t.Run(strings.ReplaceAll(client, "/", "-"), func(t *testing.T) {
			srv, s := seenServer(t, func(r *http.Request, body string) string {
				return strings.TrimPrefix(r.URL.Path, "/items/") + " " + strings.TrimPrefix(body, "id=")
			})
			runGroup(t, fmt.Sprintf(`  - id: uuids
    runner: http
    http: {client: %s, requests: [{method: POST, url: "%s/items/{{uuid}}", body: "id={{uuid}}"}]}
    load: {concurrency: 8}
    iterations: %d
`, client, srv.URL, uuidRequests), nil)
			vals := s.values()
			distinct := map[string]bool{}
			for _, v := range vals {
				inURL, inBody, _ := strings.Cut(v, " ")
				if !uuidV4.MatchString(inURL) || !uuidV4.MatchString(inBody) {
					t.Fatalf("the server saw %q, want a v4 UUID in the path and in the body", v)
				}
				distinct[inURL], distinct[inBody] = true, true
			}
			// Each {{uuid}} is a fresh one: two per request.
			if len(vals) != uuidRequests || len(distinct) != 2*uuidRequests {
				t.Errorf("the server saw %d requests with %d distinct UUIDs, want %d and %d", len(vals), len(distinct), uuidRequests, 2*uuidRequests)
			}
		})
	}
}

func writeData(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const users = "user,n\nann,1\nbob,2\ncid,3\ndee,4\neve,5\n"

// TestDataModes: sequential takes the rows in order, random any row, and
// unique each row once, after which the step ends before its time.
func TestDataModes(t *testing.T) {
	t.Parallel()
	file := writeData(t, "users.csv", users)
	group := func(srv, mode, count string) string {
		return fmt.Sprintf(`  - id: data
    runner: http
    http: {requests: [{url: "%s/{{.user}}?n={{row \"n\"}}"}]}
    data: {file: %s, mode: %s}
    load: {concurrency: 1}
    %s
`, srv, file, mode, count)
	}
	path := func(r *http.Request, _ string) string { return r.URL.Path[1:] + r.URL.Query().Get("n") }
	t.Run("sequential", func(t *testing.T) {
		srv, s := seenServer(t, path)
		runGroup(t, group(srv.URL, "sequential", "iterations: 7"), nil)
		if got := strings.Join(s.values(), " "); got != "ann1 bob2 cid3 dee4 eve5 ann1 bob2" {
			t.Errorf("sequential sent %s", got)
		}
	})
	t.Run("random", func(t *testing.T) {
		srv, s := seenServer(t, path)
		runGroup(t, group(srv.URL, "random", "iterations: 50"), nil)
		for _, v := range s.values() {
			if !strings.Contains("ann1 bob2 cid3 dee4 eve5", v) {
				t.Errorf("random sent %q, which is no row", v)
			}
		}
	})
	for name, load := range map[string]string{"unique": "concurrency: 3", "unique open loop": "rate: 200, max_in_flight: 5"} {
		t.Run(name, func(t *testing.T) {
			uniqueOnce(t, strings.Replace(group("%s", "unique", "duration: 20s"), "concurrency: 1", load, 1), path)
		})
	}
}

// uniqueOnce runs group (its URL's server a %s) with unique rows: each of
// the 5 rows is sent once, then the step ends before its 20 s.
func uniqueOnce(t *testing.T, group string, path func(*http.Request, string) string) {
	t.Helper()
	srv, s := seenServer(t, path)
	a := runGroup(t, fmt.Sprintf(group, srv.URL), nil)
	vals := s.values()
	distinct := map[string]bool{}
	for _, v := range vals {
		distinct[v] = true
	}
	st := a.Steps[0]
	if len(vals) != 5 || len(distinct) != 5 || st.Requests != 5 || st.Errors != 0 {
		t.Errorf("unique sent %v (requests %d, errors %d), want each of the 5 rows once", vals, st.Requests, st.Errors)
	}
	if st.DurationS > 10 || a.Run.Partial {
		t.Errorf("duration %.1fs partial %v: the step must end when the rows run out", st.DurationS, a.Run.Partial)
	}
}

// rawServer is a TCP listener that answers HTTP/1.1 requests with 200
// and keeps every byte it received.
func rawServer(t *testing.T) (addr string, received func() string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var all strings.Builder
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { serveRaw(c, &mu, &all) })
		}
	})
	return ln.Addr().String(), func() string { mu.Lock(); defer mu.Unlock(); return all.String() }
}

func serveRaw(c net.Conn, mu *sync.Mutex, all *strings.Builder) {
	defer c.Close()
	var buf strings.Builder
	br := bufio.NewReader(io.TeeReader(c, &buf))
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			break
		}
		io.Copy(io.Discard, req.Body)
		mu.Lock()
		all.WriteString(buf.String()[:buf.Len()-br.Buffered()])
		mu.Unlock()
		buf.Reset() // what br holds beyond this request is counted with the next
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	}
}

// TestCRLFTemplateNeverSent: a header value or a URL that renders a CR,
// LF or space is an error of kind template, and the bytes never leave.
func TestCRLFTemplateNeverSent(t *testing.T) {
	file := writeData(t, "evil.csv", "v,p\nok,ok\n\"bad\r\nX-Evil: 1\",ok\nok,\"a b\"\nok,ok\n")
	for _, client := range []string{"auto", "net/http"} {
		t.Run(strings.ReplaceAll(client, "/", "-"), func(t *testing.T) {
			addr, received := rawServer(t)
			st := runGroup(t, fmt.Sprintf(`  - id: crlf
    runner: http
    http: {client: %s, requests: [{url: "http://%s/{{.p}}", headers: {X-V: "{{.v}}"}}]}
    data: {file: %s}
    load: {concurrency: 1}
    iterations: 8
`, client, addr, file), nil).Steps[0]
			if st.Requests != 8 || st.Errors != 4 || st.ErrorKinds[KindTemplate] != 4 {
				t.Errorf("requests %d errors %d kinds %v, want 8 with 4 of kind template", st.Requests, st.Errors, st.ErrorKinds)
			}
			got := received()
			if strings.Contains(got, "X-Evil") || strings.Contains(got, "a b") || strings.Count(got, "GET /ok") != 4 {
				t.Errorf("the server received:\n%s", got)
			}
		})
	}
}

// TestTemplatePlanErrors: a bad template is a plan error naming the file,
// the section's line and the field.
func TestTemplatePlanErrors(t *testing.T) {
	err := parseErr(`  - id: bad
    runner: http
    http:
      requests:
        - {url: "http://127.0.0.1:1/{{nope}}", body: "{{rand_int 9 1}}", headers: {X-A: "{{.col}}"}}
        - {url: "http://{{uuid}}/"}
    duration: 1s
    load: {concurrency: 1}
`)
	wantErrors(t, err,
		`p.yaml:6:7: group bad: http.requests[0].url: template: {{nope}}: unknown function "nope"`,
		`p.yaml:6:7: group bad: http.requests[0].body: template: {{rand_int 9 1}}`,
		`p.yaml:6:7: group bad: http.requests[0].headers.X-A: template: {{.col}}: column "col": the group has no data file`,
		`p.yaml:6:7: group bad: http.requests[1].url: templates may fill a URL's path and query`,
	)
}

// TestTemplateEnvSecret: {{env "API_TOKEN"}} is read when the plan is,
// and its value joins the plan's secrets; the config shows it as written.
func TestTemplateEnvSecret(t *testing.T) {
	p := runnertest.ParsePlan(t, testRegistry, `version: 1
groups:
  - id: env
    runner: http
    http: {requests: [{url: "http://127.0.0.1:1/", headers: {X-T: 'Bearer {{env "API_TOKEN"}}'}}]}
    duration: 1s
    load: {concurrency: 1}
`, map[string]string{"API_TOKEN": "s3cr3t-value"})
	if got := p.Redact("saw s3cr3t-value"); strings.Contains(got, "s3cr3t") {
		t.Errorf("the env value is not a secret: %q", got)
	}
	if raw := fmt.Sprint(p.Groups[0].Raw); strings.Contains(raw, "s3cr3t") || !strings.Contains(raw, `{{env "API_TOKEN"}}`) {
		t.Errorf("the config shows %s", raw)
	}
	t.Setenv("API_TOKEN", "not-this-one") // the value read with the plan wins
	tp, err := p.Groups[0].Template(plan.Pos{}, "", `{{env "API_TOKEN"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tp.Append(nil, tmpl.NewState(nil, nil))); got != "s3cr3t-value" {
		t.Errorf("{{env}} rendered %q, want the value read with the plan", got)
	}
}

// TestLeanRenderAllocs: once its buffers have grown, rendering a lean
// request allocates nothing.
func TestLeanRenderAllocs(t *testing.T) {
	r := NewRunner(&Spec{Requests: []Request{{Method: "POST", URL: "http://127.0.0.1:1/i/{{uuid}}",
		Headers: map[string]string{"X-Seq": "{{seq}}"}, Body: `{"id":"{{uuid}}","at":"{{now}}"}`}}})
	if r.err != nil || r.lean == nil || r.lean[0].tpl == nil {
		t.Fatalf("want a templated lean request: %v", r.err)
	}
	st := tmpl.NewState(nil, nil)
	var b buffers
	if n := testing.AllocsPerRun(1000, func() { st.Next(); r.lean[0].tpl.render(&b, st) }); n > 0 {
		t.Errorf("rendering allocates %v times per request, want 0", n)
	}
}

// wantErrors fails t unless err holds every one of wants.
func wantErrors(t *testing.T, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("want plan errors")
	}
	for _, want := range wants {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
}

// parseErr parses a plan named p.yaml of groups (YAML indented under
// "groups:", from line 3) with no environment and returns its error.
func parseErr(groups string) error {
	src := "version: 1\ngroups:\n" + groups
	_, err := plan.ParsePlan("p.yaml", []byte(src), func(string) (string, bool) { return "", false }, testRegistry)
	return err
}

// TestVarsReachTemplates: a var of two values makes two steps, each of
// whose requests carries its step's value (the server counts by path),
// with either client; the artifact keeps each step's values.
func TestVarsReachTemplates(t *testing.T) {
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			rc := &routeCounter{routes: map[string]int64{}, status: map[string]int64{}}
			srv := httptest.NewServer(rc)
			t.Cleanup(srv.Close)
			a := runGroup(t, fmt.Sprintf(`  - id: vars
    runner: http
    http: {client: %s, requests: [{url: "%s/{{.path}}", headers: {X-Shape: "{{.shape}}"}}]}
    vars: {path: [a, b], shape: [flat]}
    load: {concurrency: 2}
    iterations: 20
    max_duration: 20s
`, client, srv.URL), nil)
			rc.mu.Lock()
			defer rc.mu.Unlock()
			if len(a.Steps) != 2 || a.Steps[0].Label != "concurrency=2,path=a" || a.Steps[1].Vars["path"] != "b" {
				t.Fatalf("steps %d: %q %v", len(a.Steps), a.Steps[0].Label, a.Steps[1].Vars)
			}
			if rc.routes["/a"] != 20 || rc.routes["/b"] != 20 || len(rc.routes) != 2 {
				t.Errorf("the server saw %v, want 20 each of /a and /b", rc.routes)
			}
		})
	}
}
