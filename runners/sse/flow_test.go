package sse

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/benchtui/benchtui/runners/demo"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// ticketServer gives a token at POST /login, a one-time ticket at /ticket
// for that token, and an event stream at /events only for an unused
// ticket. It counts what it gave and refused.
type ticketServer struct {
	events http.Handler

	mu                      sync.Mutex
	tokens, tickets         map[string]bool
	logins, issued, streams int
	refused                 int
}

func (s *ticketServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	switch r.URL.Path {
	case "/login":
		tok := rand.Text()
		s.tokens[tok] = true
		s.logins++
		s.mu.Unlock()
		fmt.Fprintf(w, `{"access_token":%q}`, tok)
		return
	case "/ticket":
		if !s.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")] {
			break
		}
		tk := rand.Text()
		s.tickets[tk] = true
		s.issued++
		s.mu.Unlock()
		fmt.Fprintf(w, "ticket=%s", tk)
		return
	case "/events":
		tk := r.URL.Query().Get("ticket")
		if !s.tickets[tk] {
			break
		}
		delete(s.tickets, tk)
		s.streams++
		s.mu.Unlock()
		s.events.ServeHTTP(w, r)
		return
	}
	s.refused++
	s.mu.Unlock()
	w.WriteHeader(http.StatusUnauthorized)
}

// TestFlowBeforeConnect: each subscriber logs in once, then before every
// connect takes a fresh ticket with its token and connects with it. The
// server refuses nothing, logged in once per subscriber, and streamed
// once per ticket; the flow's steps have their figures by name.
func TestFlowBeforeConnect(t *testing.T) {
	s := &ticketServer{events: demo.SSEHandler(10), tokens: map[string]bool{}, tickets: map[string]bool{}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	st := runnertest.RunPlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: e
    runner: sse
    sse:
      url: "%[1]s/events?rate=50&limit=5&ticket={{.ticket}}"
      subscribers: 4
      reconnect: true
      flow:
        - name: login
          once: true
          method: POST
          url: "%[1]s/login"
          capture: {token: {json: $.access_token}}
        - name: ticket
          url: "%[1]s/ticket"
          headers: {Authorization: "Bearer {{.token}}"}
          capture: {ticket: {regex: 'ticket=(\w+)'}}
    duration: 2s
`, srv.URL), nil).Steps[0]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logins != 4 || s.refused != 0 || s.streams < 8 {
		t.Errorf("server: %d logins (want 4, one per subscriber), %d refused, %d streams (want a reconnect each)", s.logins, s.refused, s.streams)
	}
	login, ticket := st.ByName["login"], st.ByName["ticket"]
	if login.Requests != int64(s.logins) || ticket.Requests != int64(s.issued) || login.Errors+ticket.Errors != 0 {
		t.Errorf("by name: login %d, ticket %d, errors %d; the server logged in %d, issued %d", login.Requests, ticket.Requests, login.Errors+ticket.Errors, s.logins, s.issued)
	}
	if st.Errors != 0 || st.Requests <= ticket.Requests+login.Requests {
		t.Errorf("step: %d requests, %d errors %v", st.Requests, st.Errors, st.ErrorKinds)
	}
}
