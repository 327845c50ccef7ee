package demo

import (
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Token stand-in: an OAuth token endpoint whose tokens expire, and the API
// they guard (seed 003's ingestion API, whose tokens lived 60 s):
//
//	POST /token?life=D   issues a bearer token that lives D (a Go duration,
//	                     default Options.TokenLife): 200
//	                     {"access_token":"…","token_type":"Bearer","expires_in":S}
//	GET  /token/stats    {"issued":N,"rejected":M}: tokens issued, and 401s
//	                     served by /auth/
//	ANY  /auth/PATH      with "Authorization: Bearer T", T a live token:
//	                     serves /PATH (/auth/ingest is /ingest); else 401
//	                     with WWW-Authenticate: Bearer error="invalid_token"
type tokens struct {
	life     time.Duration
	next     http.Handler // what /auth/PATH serves once the token is checked
	issued   atomic.Int64
	rejected atomic.Int64

	mu   sync.Mutex
	live map[string]time.Time // token -> when it expires
}

// DefaultTokenLife is how long a /token token lives without ?life= or
// Options.TokenLife: the 60 s of seed 003's tokens.
const DefaultTokenLife = 60 * time.Second

// Bounds of the token store: what a client can make the server hold.
const (
	maxTokens    = 20_000
	maxTokenLife = 24 * time.Hour
)

func registerTokens(mux *http.ServeMux, life time.Duration) *tokens {
	if life <= 0 {
		life = DefaultTokenLife
	}
	t := &tokens{life: min(life, maxTokenLife), next: mux, live: map[string]time.Time{}}
	mux.HandleFunc("/token", t.issue)
	mux.HandleFunc("/token/stats", t.stats)
	mux.HandleFunc("/auth/", t.guard)
	return t
}

func (t *tokens) issue(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST for a token", http.StatusMethodNotAllowed)
		return
	}
	io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	life := t.life
	if v := r.URL.Query().Get("life"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > maxTokenLife {
			http.Error(w, "life: want a duration above 0 and at most 24h, such as 60s", http.StatusBadRequest)
			return
		}
		life = d
	}
	tok := rand.Text()
	now := time.Now()
	t.mu.Lock()
	if len(t.live) >= maxTokens {
		t.forgetExpired(now)
	}
	t.live[tok] = now.Add(life)
	t.mu.Unlock()
	t.issued.Add(1)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":%d}`+"\n", tok, int64(life.Seconds()))
}

// forgetExpired drops the expired tokens, and every token when none had
// expired: the store stays bounded whatever the clients do.
func (t *tokens) forgetExpired(now time.Time) {
	for tok, until := range t.live {
		if !now.Before(until) {
			delete(t.live, tok)
		}
	}
	if len(t.live) >= maxTokens {
		clear(t.live)
	}
}

// valid reports whether r carries a live token.
func (t *tokens) valid(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	t.mu.Lock()
	until, ok := t.live[tok]
	t.mu.Unlock()
	return ok && time.Now().Before(until)
}

func (t *tokens) guard(w http.ResponseWriter, r *http.Request) {
	if !t.valid(r) {
		io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		t.rejected.Add(1)
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		http.Error(w, "token missing, unknown or expired", http.StatusUnauthorized)
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, "/auth")
	if strings.HasPrefix(rest, "/auth/") || rest == "/auth" {
		http.NotFound(w, r) // one guard is enough
		return
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawPath = rest, ""
	t.next.ServeHTTP(w, r2)
}

func (t *tokens) stats(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, "{\"issued\":%d,\"rejected\":%d}\n", t.issued.Load(), t.rejected.Load())
}

// TokenStats are the token stand-in's counts: tokens issued by POST
// /token, and 401s served by /auth/ (GET /token/stats).
func (h *Handler) TokenStats() (issued, rejected int64) {
	return h.tokens.issued.Load(), h.tokens.rejected.Load()
}
