package httpload

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/flow"
)

// sessionServer is an MCP-like server: POST /session opens a session (its
// id in the Mcp-Session-Id header and in the JSON body), POST /call needs
// that header and the id in its body and answers a token (every
// tokenlessEvery-th call answers none), GET /use/TOKEN needs a token it
// gave. It counts what it accepted and refused.
type sessionServer struct {
	tokenlessEvery int

	mu                          sync.Mutex
	sessions, tokens            map[string]bool
	opened, calls, uses         int64
	tokenless, refused, strange int64
}

func newSessionServer(tokenlessEvery int) *sessionServer {
	return &sessionServer{tokenlessEvery: tokenlessEvery, sessions: map[string]bool{}, tokens: map[string]bool{}}
}

func (s *sessionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.URL.Path == "/session" && r.Method == http.MethodPost:
		id := rand.Text()
		s.sessions[id] = true
		s.opened++
		w.Header().Set("Mcp-Session-Id", id)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","result":{"session":%q,"n":%d}}`, id, s.opened)
	case r.URL.Path == "/call" && r.Method == http.MethodPost:
		id := r.Header.Get("Mcp-Session-Id")
		var call struct{ Session string }
		if !s.sessions[id] || json.Unmarshal(body, &call) != nil || call.Session != id {
			s.refused++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		s.calls++
		if s.tokenlessEvery > 0 && s.calls%int64(s.tokenlessEvery) == 0 {
			s.tokenless++
			fmt.Fprint(w, "no token today")
			return
		}
		tok := strings.ToLower(rand.Text())
		s.tokens[tok] = true
		fmt.Fprintf(w, "ok token=%s; bye", tok)
	case strings.HasPrefix(r.URL.Path, "/use/"):
		if !s.tokens[strings.TrimPrefix(r.URL.Path, "/use/")] {
			s.refused++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		s.uses++
	default:
		s.strange++
		w.WriteHeader(http.StatusNotFound)
	}
}

const flowGroup = `  - id: flow
    runner: http
    http:
      client: %s
      flow:
        - name: initialize
          once: true
          method: POST
          url: "%[2]s/session"
          body: '{"method":"initialize"}'
          capture:
            session: {header: mcp-session-id}
            sid: {json: $.result.session}
        - name: call
          method: POST
          url: "%[2]s/call?n={{seq}}"
          headers: {Mcp-Session-Id: "{{.session}}"}
          body: '{"session":"{{.sid}}"}'
          capture: {token: {regex: 'token=(\w+)'}}
        - name: use
          url: "%[2]s/use/{{.token}}"
          think: 1ms
    load: {concurrency: 4}
    per_worker_iterations: 40
    max_duration: 20s
`

// runFlowGroup runs flowGroup (4 workers, 40 iterations each: bounded
// work, not a second of a closed loop's CPU) with client against a session server that
// answers every tokenlessEvery-th call without a token; it returns the
// server locked, and the step.
func runFlowGroup(t *testing.T, client string, tokenlessEvery int) (*sessionServer, artifacts.Step) {
	s := newSessionServer(tokenlessEvery)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	st := runGroup(t, fmt.Sprintf(flowGroup, client, srv.URL), nil).Steps[0]
	s.mu.Lock()
	return s, st
}

// TestFlowCarriesCaptures: every virtual user opens one session (once),
// and every later request carries what the replies before it returned
// (the session from a header and from JSON, a token by regex): the server
// refuses none. Its counts are the step's, by name. Both clients.
func TestFlowCarriesCaptures(t *testing.T) {
	t.Parallel()
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			s, st := runFlowGroup(t, client, 0)
			defer s.mu.Unlock()
			if s.opened != 4 || s.refused != 0 || s.strange != 0 || s.uses == 0 {
				t.Errorf("server: %d sessions opened (want one per worker, 4), %d refused, %d strange, %d uses", s.opened, s.refused, s.strange, s.uses)
			}
			by := st.ByName
			if by["initialize"].Requests != s.opened || by["call"].Requests != s.calls || by["use"].Requests != s.uses {
				t.Errorf("by name %d/%d/%d; the server opened %d, called %d, used %d", by["initialize"].Requests, by["call"].Requests, by["use"].Requests, s.opened, s.calls, s.uses)
			}
			if st.Requests != s.opened+s.calls+s.uses || st.Errors != 0 {
				t.Errorf("step: %d requests, %d errors (%v); the server answered %d", st.Requests, st.Errors, st.ErrorKinds, s.opened+s.calls+s.uses)
			}
			if it := st.ExtraMS[flow.ExtraIteration]; it.P50 <= 0 {
				t.Errorf("no iteration timing: %v", st.ExtraMS)
			}
		})
	}
}

// TestFlowCountsBrokenCaptures: a reply without the captured value is an
// error of kind capture on its step, and ends the iteration: the step
// after it is not sent.
func TestFlowCountsBrokenCaptures(t *testing.T) {
	t.Parallel()
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			s, st := runFlowGroup(t, client, 5)
			defer s.mu.Unlock()
			call, use := st.ByName["call"], st.ByName["use"]
			if s.tokenless == 0 || call.ErrorKinds[flow.KindCapture] != s.tokenless || st.Errors != s.tokenless {
				t.Errorf("capture errors %v of step errors %d; the server answered %d calls without a token", call.ErrorKinds, st.Errors, s.tokenless)
			}
			if use.Requests != s.calls-s.tokenless || s.refused != 0 {
				t.Errorf("%d uses sent after %d calls, %d without a token; %d refused", use.Requests, s.calls, s.tokenless, s.refused)
			}
		})
	}
}

// TestFlowCapturesFromLargeBodies: a token at the start of a 3 MiB reply
// (chunked, or with a length) is captured from the first MiB kept, the
// rest is read and dropped so that the connection carries the next
// request, and the step after it gets the token. Two workers do 3
// iterations each: each connection carries a request after a big reply.
func TestFlowCapturesFromLargeBodies(t *testing.T) {
	t.Parallel()
	filler := strings.Repeat("x", 3<<20)
	var mu sync.Mutex
	got := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			if r.URL.Query().Get("chunked") == "" {
				w.Header().Set("Content-Length", fmt.Sprint(len("token=t42 ")+len(filler)))
			}
			io.WriteString(w, "token=t42 ")
			w.(http.Flusher).Flush()
			io.WriteString(w, filler)
			return
		}
		mu.Lock()
		got[r.URL.Path]++
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	for _, client := range clients {
		for _, chunked := range []string{"", "1"} {
			t.Run(client+" chunked="+chunked, func(t *testing.T) {
				st := runGroup(t, fmt.Sprintf(`  - id: big
    runner: http
    http:
      client: %s
      flow:
        - {name: big, url: "%s/big?chunked=%s", capture: {tok: {regex: 'token=(\w+)'}}}
        - {name: use, url: "%s/use/{{.tok}}"}
    load: {concurrency: 2}
    per_worker_iterations: 3
    max_duration: 20s
`, client, srv.URL, chunked, srv.URL), nil).Steps[0]
				if st.Errors != 0 || st.ByName["use"].Requests != 6 {
					t.Errorf("errors %d %v, %d uses; want 6 and none", st.Errors, st.ErrorKinds, st.ByName["use"].Requests)
				}
			})
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got["/use/t42"] != 24 {
		t.Errorf("the server saw %v, want 24 uses of t42 (6 in each of 4 runs)", got)
	}
}

// TestFlowIterationsAndOpenLoop: iterations and an open loop's arrivals
// count whole iterations: 40 iterations send each of the two steps 40
// times; an open loop's arrivals, sent or dropped, are its iterations.
func TestFlowIterationsAndOpenLoop(t *testing.T) {
	t.Parallel()
	for _, load := range []string{"load: {concurrency: 3}", "load: {rate: 100, max_in_flight: 8}"} {
		t.Run(load, func(t *testing.T) {
			s := newSessionServer(0)
			srv := httptest.NewServer(s)
			t.Cleanup(srv.Close)
			st := runGroup(t, fmt.Sprintf(`  - id: count
    runner: http
    http:
      flow:
        - {name: open, method: POST, url: "%[1]s/session", capture: {sid: {json: $.result.session}}}
        - {name: call, method: POST, url: "%[1]s/call", headers: {Mcp-Session-Id: "{{.sid}}"}, body: '{"session":"{{.sid}}"}'}
    %[2]s
    iterations: 40
    max_duration: 20s
`, srv.URL, load), nil).Steps[0]
			s.mu.Lock()
			defer s.mu.Unlock()
			open, call := st.ByName["open"], st.ByName["call"]
			if open.Requests+st.Dropped != 40 || call.Requests != open.Requests || s.opened != open.Requests || s.calls != call.Requests || s.refused != 0 {
				t.Errorf("open %d, call %d, dropped %d; the server opened %d, called %d, refused %d; want 40 iterations in all",
					open.Requests, call.Requests, st.Dropped, s.opened, s.calls, s.refused)
			}
		})
	}
}
