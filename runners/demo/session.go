package demo

import (
	"crypto/rand"
	"fmt"
	"io"
	"log"
	"net/http"
	"sync"
	"time"
)

// maxSessions bounds the demo's live sessions whatever the TTL; past it
// the oldest half are forgotten.
const maxSessions = 20_000

// sessions is a stand-in for a session-based API (an MCP server): POST
// /session opens a session, named by its Mcp-Session-Id header and by the
// body's result.session; POST /call answers 200 with `token=…` only with a
// session's header, else 401. A flow's captures are what it is for.
//
// Like the server of seed 002 (mcp-go behind a fetch dedup store), each
// session holds some memory (SessionOptions.KB) until it has been idle
// for the TTL; a sweep, at most every TTL/2 and run by the next new
// session, removes the idle ones and logs "session sweep: removed N idle
// sessions, M live". A dedup store of DedupCap sessions logs a WARN line
// for every new session past its cap, as the real one did.
type sessions struct {
	opts      SessionOptions
	log       *log.Logger
	mu        sync.Mutex
	live      map[string]*session
	count     uint64
	lastSweep time.Time
	dedupFull bool // the fault dedup-full: the store counts as full
}

type session struct {
	opened uint64 // the session's number, in order of opening
	usedAt time.Time
	state  []byte // the memory a live session holds
}

// SessionOptions shape the demo's session store (demo-target's
// --session-ttl, --session-kb and --dedup-cap).
type SessionOptions struct {
	// TTL is how long an idle session lives; 0 keeps sessions until
	// maxSessions.
	TTL time.Duration
	// KB is the memory each live session holds.
	KB int
	// DedupCap is the dedup store's size in sessions; 0: no store.
	DedupCap int
}

func (s *sessions) start(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a session", http.StatusMethodNotAllowed)
		return
	}
	io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	id := rand.Text()
	now := time.Now()
	s.mu.Lock()
	if s.live == nil {
		s.live = map[string]*session{}
		s.lastSweep = now
	}
	s.sweepIdle(now)
	s.forgetOldest()
	s.count++
	s.live[id] = &session{opened: s.count, usedAt: now, state: make([]byte, s.opts.KB<<10)}
	if s.dedupFull || (s.opts.DedupCap > 0 && len(s.live) > s.opts.DedupCap) {
		s.log.Printf("WARN fetch dedup store full (%d sessions): evicting the oldest", s.opts.DedupCap)
	}
	s.mu.Unlock()
	w.Header().Set("Mcp-Session-Id", id)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"session":%q}}`+"\n", id)
}

// sweepIdle removes the sessions idle for the TTL, at most every TTL/2.
func (s *sessions) sweepIdle(now time.Time) {
	if s.opts.TTL <= 0 || now.Sub(s.lastSweep) < s.opts.TTL/2 {
		return
	}
	s.lastSweep = now
	removed := 0
	for id, ss := range s.live {
		if now.Sub(ss.usedAt) >= s.opts.TTL {
			delete(s.live, id)
			removed++
		}
	}
	s.log.Printf("INFO session sweep: removed %d idle sessions, %d live", removed, len(s.live))
}

// forgetOldest drops the older half of the sessions at maxSessions.
func (s *sessions) forgetOldest() {
	if len(s.live) < maxSessions {
		return
	}
	for id, ss := range s.live {
		if ss.opened < s.count-maxSessions/2 {
			delete(s.live, id)
		}
	}
}

// Live is how many sessions are open.
func (s *sessions) Live() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.live)
}

func (s *sessions) call(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	s.mu.Lock()
	ss, ok := s.live[r.Header.Get("Mcp-Session-Id")]
	if ok {
		ss.usedAt = time.Now()
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, "no such session", http.StatusUnauthorized)
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":2,"result":{"content":"token=%s"}}`+"\n", rand.Text())
}
