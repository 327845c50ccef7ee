package pgload_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/plan"
)

// drainServer is a loopback server whose queue drains as it is asked:
// /pending answers {"pending": P} with P one less at every request from
// start down to 0, /stuck always {"pending": 3}, /status the status in
// ?code=, /echo the method, body and X-Batch header it got. It counts
// the requests of each path.
type drainServer struct {
	*httptest.Server
	start int

	mu    sync.Mutex
	asked map[string]int
	last  string // /echo's last request: "METHOD body header"
}

func newDrainServer(t *testing.T, start int) *drainServer {
	t.Helper()
	s := &drainServer{start: start, asked: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *drainServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<10))
	s.mu.Lock()
	s.asked[r.URL.Path]++
	n := s.asked[r.URL.Path]
	if r.URL.Path == "/echo" {
		s.last = fmt.Sprintf("%s %s %s", r.Method, body, r.Header.Get("X-Batch"))
	}
	s.mu.Unlock()
	switch r.URL.Path {
	case "/pending":
		fmt.Fprintf(w, `{"pending": %d}`, max(s.start-n+1, 0))
	case "/stuck":
		fmt.Fprint(w, `{"pending": 3, "owner": "batch-7"}`)
	case "/status":
		code, _ := strconv.Atoi(r.URL.Query().Get("code"))
		w.WriteHeader(code)
		fmt.Fprint(w, `{"pending": 0}`)
	case "/echo":
		fmt.Fprint(w, `{"ok": true}`)
	}
}

// count is how many requests path got.
func (s *drainServer) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[path]
}

// The value of an http entry is its JSONPath's first node, or its status;
// `until:` polls it until it holds (the server's count of requests is
// the polls made) or fails at its deadline with the last value read.
func TestVerifyHTTPSource(t *testing.T) {
	t.Parallel()
	srv := newDrainServer(t, 4)
	until := func(d time.Duration) plan.Duration { return plan.Duration{Duration: d} }
	list := []pgload.Verify{
		{Name: "drains", HTTP: &pgload.VerifyHTTP{URL: srv.URL + "/pending", JSON: "$.pending"}, Comparison: plan.Comparison{EQ: str("0")}, Until: until(20 * time.Second)},
		{Name: "stuck", HTTP: &pgload.VerifyHTTP{URL: srv.URL + "/stuck", JSON: "$.pending"}, Comparison: plan.Comparison{LE: str("0")}, Until: until(1500 * time.Millisecond)},
		{Name: "owner", HTTP: &pgload.VerifyHTTP{URL: srv.URL + "/stuck", JSON: "$.owner"}, Expect: "batch-{{.B}}"},
		{Name: "status value", HTTP: &pgload.VerifyHTTP{URL: srv.URL + "/status?code=204"}, Comparison: plan.Comparison{EQ: str("204")}},
		{Name: "unexpected status", HTTP: &pgload.VerifyHTTP{URL: srv.URL + "/status?code=503", JSON: "$.pending", ExpectStatus: []int{200}}, Expect: "0"},
		{Name: "json on 5xx", HTTP: &pgload.VerifyHTTP{URL: srv.URL + "/status?code=500", JSON: "$.pending"}, Expect: "0"},
		{Name: "post", HTTP: &pgload.VerifyHTTP{URL: srv.URL + "/echo", Method: "POST", Body: "n={{requests}}",
			Headers: map[string]string{"X-Batch": "{{.B}}"}, JSON: "$.ok"}, Expect: "true"},
	}
	start := time.Now()
	got := verifyNow(t, list, runners.Summary{Requests: 12, Vars: map[string]string{"B": "7"}})
	elapsed := time.Since(start)

	d := got["drains"]
	polls := srv.count("/pending")
	if polls != 5 {
		t.Errorf("drains: the server was asked %d times; want 5 (pending 4, 3, 2, 1, 0)", polls)
	}
	// 4 pauses of 500 ms between the 5 polls.
	if !d.OK || d.Value != 0 || d.TimeToPassS < 1.9 || d.TimeToPassS > 15 {
		t.Errorf("drains: %+v; want ok after about 2s", d)
	}
	s := got["stuck"]
	if s.OK || s.Value != 3 || !strings.Contains(s.Note, "did not hold within 1.5s: got 3, want <= 0") || s.TimeToPassS != 0 {
		t.Errorf("stuck: %+v; want failed at 1.5s with the last value 3", s)
	}
	if n := srv.count("/stuck"); n < 4 || n > 6 {
		t.Errorf("/stuck asked %d times: want about 1.5s / 500ms + 1 polls and the owner's read", n)
	}
	if elapsed < 2*time.Second {
		t.Errorf("the entries took %v: the draining one could not have waited for 5 polls", elapsed)
	}
	for name, note := range map[string]string{
		"unexpected status": "status 503, want 200",
		"json on 5xx":       "status 500, want 2xx",
	} {
		if c := got[name]; c.OK || !strings.Contains(c.Note, note) {
			t.Errorf("%s: %+v; want failed naming %q", name, c, note)
		}
	}
	for _, name := range []string{"owner", "status value", "post"} {
		if !got[name].OK {
			t.Errorf("%s: %+v; want ok", name, got[name])
		}
	}
	if got["status value"].Value != 204 {
		t.Errorf("status value: %+v; want the value 204", got["status value"])
	}
	srv.mu.Lock()
	last := srv.last
	srv.mu.Unlock()
	if last != "POST n=12 7" {
		t.Errorf("the server got %q; want the POST with its body and header filled: \"POST n=12 7\"", last)
	}
}

// A command's value is its trimmed stdout, or its exit status with value:
// exit_status; an exit status other than 0 fails a stdout entry with its
// stderr's first line. until polls a command whose output changes at
// every run (it counts its runs in a file, the ground truth of the polls).
func TestVerifyCommandSource(t *testing.T) {
	t.Parallel()
	runs := filepath.Join(t.TempDir(), "runs")
	if err := os.WriteFile(runs, []byte("0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	countdown := `n=$(cat "$1"); n=$((n+1)); echo $n > "$1"; echo "  $((3-n > 0 ? 3-n : 0))  "`
	list := []pgload.Verify{
		{Name: "number", Command: []string{"sh", "-c", "echo 42"}, Comparison: plan.Comparison{EQ: str("{{requests}}")}},
		{Name: "text", Command: []string{"sh", "-c", "printf '  drained \\n'"}, Expect: "drained"},
		{Name: "fails", Command: []string{"sh", "-c", "echo 1; echo 'queue locked by batch 9' >&2; echo more >&2; exit 3"}, Expect: "1"},
		{Name: "exit status", Command: []string{"sh", "-c", "exit 3"}, Value: pgload.ValueExitStatus, Comparison: plan.Comparison{EQ: str("3")}},
		{Name: "exit 0", Command: []string{"sh", "-c", "exit 0"}, Value: pgload.ValueExitStatus, Expect: "0"},
		{Name: "countdown", Command: []string{"sh", "-c", countdown, "sh", runs}, Comparison: plan.Comparison{EQ: str("0")},
			Until: plan.Duration{Duration: 20 * time.Second}},
	}
	got := verifyNow(t, list, runners.Summary{Requests: 42})
	for _, name := range []string{"number", "text", "exit status", "exit 0", "countdown"} {
		if !got[name].OK {
			t.Errorf("%s: %+v; want ok", name, got[name])
		}
	}
	if f := got["fails"]; f.OK || f.Note != "sh: exit status 3: queue locked by batch 9" {
		t.Errorf("fails: %+v; want failed with the exit status and stderr's first line", f)
	}
	if got["exit status"].Value != 3 {
		t.Errorf("exit status: value %v, want 3", got["exit status"].Value)
	}
	b, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.TrimSpace(string(b)); n != "3" {
		t.Errorf("the countdown ran %s times; want 3 (2, 1, then 0)", n)
	}
	if c := got["countdown"]; c.TimeToPassS < 0.9 || c.TimeToPassS > 15 {
		t.Errorf("countdown: %+v; want ok after two pauses of 500ms", c)
	}
}

// probe: NAME reads the group's probe once more, with the probe's reader:
// the server sees one more request, and the value is what it served.
func TestVerifyProbeSource(t *testing.T) {
	t.Parallel()
	srv := newDrainServer(t, 10)
	g := &plan.Group{ID: "H1", Runner: "http", Probes: []plan.Probe{
		{Name: "pending", HTTP: &plan.ProbeHTTP{URL: srv.URL + "/pending", JSON: "$.pending"}},
		{Name: "broken", Command: []string{"sh", "-c", "echo no >&2; exit 1"}},
	}}
	list := []pgload.Verify{
		{Name: "read once more", Probe: "pending", Comparison: plan.Comparison{EQ: str("10")}},
		{Name: "again", Probe: "pending", Comparison: plan.Comparison{LT: str("10")}},
		{Name: "broken", Probe: "broken", Expect: "0"},
	}
	g.Sections = map[string]any{"verify": &list}
	if errs := pgload.ValidateVerify(g); len(errs) != 0 {
		t.Fatal(errs)
	}
	found, err := pgload.VerifyChecks(context.Background(), g, runners.Summary{})
	got := checks(&artifacts.Step{Checks: found})
	if !got["read once more"].OK || got["read once more"].Value != 10 || !got["again"].OK || got["again"].Value != 9 {
		t.Errorf("%+v; want 10 then 9", found)
	}
	if n := srv.count("/pending"); n != 2 {
		t.Errorf("the probe's server was asked %d times; want 2, one per entry", n)
	}
	if b := got["broken"]; b.OK || b.Note != "probe broken: sh: exit status 1: no" {
		t.Errorf("broken: %+v", b)
	}
	if err == nil || !strings.Contains(err.Error(), `verify "broken"`) {
		t.Errorf("the hook's error %v; want the broken entry named", err)
	}
}

// An entry gives exactly one source; its keys are checked, each a plan
// error at the entry's line naming the field.
func TestVerifySourcePlanErrors(t *testing.T) {
	t.Parallel()
	ok := `    probes:
      - {name: backlog, command: ["sh", "-c", "echo 0"]}
    postgres:
      dsn: embedded
      statements: [{sql: "SELECT 1"}]
      verify:
        - {name: drained, http: {url: "http://127.0.0.1:9/stats", json: "$.pending"}, "==": 0, until: 30s}
        - {command: ["sh", "-c", "exit {{errors}}"], value: exit_status, expect: 0}
        - {probe: backlog, "<=": 5}
`
	if err := parsePG(ok); err != nil {
		t.Fatalf("a good plan: %v", err)
	}
	for _, c := range []struct{ yaml, want string }{
		{`{name: none, expect: 1}`, `plan.yaml:16:11: group PG: postgres.verify[3].sql: want a source: sql (with dsn), http, command or probe`},
		{`{sql: "SELECT 1", command: [ls]}`, `plan.yaml:16:11: group PG: postgres.verify[3].command: give exactly one of sql, http, command and probe, got sql and command`},
		{`{http: {url: "http://127.0.0.1:9/"}, probe: backlog}`, `plan.yaml:16:11: group PG: postgres.verify[3].probe: give exactly one of sql, http, command and probe, got http and probe`},
		{`{probe: queue}`, `plan.yaml:16:11: group PG: postgres.verify[3].probe: no probe "queue" in the group's probes (it has: backlog)`},
		{`{probe: backlog, timeout: 1s}`, `postgres.verify[3].timeout: a probe is read within its own timeout`},
		{`{command: [ls], value: status}`, `plan.yaml:16:11: group PG: postgres.verify[3].value: want exit_status`},
		{`{http: {url: "http://127.0.0.1:9/"}, value: exit_status}`, `postgres.verify[3].value: value goes with command, not http`},
		{`{http: {url: "http://127.0.0.1:9/"}, dsn: "postgres://x"}`, `postgres.verify[3].dsn: dsn goes with sql, not http`},
		{`{http: {url: "ftp://127.0.0.1:9/"}}`, `plan.yaml:16:11: group PG: postgres.verify[3].http.url: want an http:// or https:// URL`},
		{`{http: {url: "http://127.0.0.1:9/", json: "$[", method: get}}`, `postgres.verify[3].http.json: "$[" is no RFC 9535 JSONPath`},
		{`{http: {url: "http://127.0.0.1:9/", method: get}}`, `postgres.verify[3].http.method: "get" is no HTTP method`},
		{`{http: {url: "http://127.0.0.1:9/", expect_status: [99]}}`, `postgres.verify[3].http.expect_status[0]: want an HTTP status from 100 to 599, got 99`},
		{`{http: {json: "$.a"}}`, `plan.yaml:16:18: groups[0].postgres.verify[3].http.url: missing (required)`},
		{`{http: {url: "http://127.0.0.1:9/{{.X}}"}}`, `postgres.verify[3].http.url: {{.X}}: a verify entry reads`},
		{`{command: ["sh", "-c", "echo {{rows}}"]}`, `postgres.verify[3].command[2]: {{rows}}: a verify entry reads`},
		{`{command: [""]}`, `postgres.verify[3].command: the program (command[0]) is empty`},
		{`{command: [ls], timeout: 2m}`, `postgres.verify[3].timeout: want at most 1m0s, got 2m0s`},
	} {
		err := parsePG(ok + "        - " + c.yaml + "\n")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %q", c.yaml, err, c.want)
		}
	}
}
