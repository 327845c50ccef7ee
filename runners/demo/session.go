package demo

import (
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// maxSessions bounds the demo's open sessions; past it the oldest half
// are forgotten, as a server expiring sessions would.
const maxSessions = 100_000

// sessions is a stand-in for a session-based API (an MCP server): POST
// /session opens a session, named by its Mcp-Session-Id header and by the
// body's result.session; POST /call answers 200 with `token=…` only with a
// session's header, else 401. A flow's captures are what it is for.
type sessions struct {
	mu    sync.Mutex
	open  map[string]uint64 // session -> when it was opened (a counter)
	count uint64
}

func (s *sessions) start(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a session", http.StatusMethodNotAllowed)
		return
	}
	io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	id := rand.Text()
	s.mu.Lock()
	if s.open == nil {
		s.open = map[string]uint64{}
	}
	if len(s.open) >= maxSessions {
		for k, at := range s.open {
			if at < s.count-maxSessions/2 {
				delete(s.open, k)
			}
		}
	}
	s.count++
	s.open[id] = s.count
	s.mu.Unlock()
	w.Header().Set("Mcp-Session-Id", id)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"session":%q}}`+"\n", id)
}

func (s *sessions) call(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	s.mu.Lock()
	_, ok := s.open[r.Header.Get("Mcp-Session-Id")]
	s.mu.Unlock()
	if !ok {
		http.Error(w, "no such session", http.StatusUnauthorized)
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":2,"result":{"content":"token=%s"}}`+"\n", rand.Text())
}
