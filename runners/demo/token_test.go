package demo

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestTokenGuardsUntilItExpires: a token opens /auth/ingest until its
// life ends, then 401; no token or a made-up one is 401 too; the stats
// count what was issued and refused.
func TestTokenGuardsUntilItExpires(t *testing.T) {
	h := NewHandlerWith(Options{TokenLife: time.Hour})
	srv := httptest.NewServer(h)
	defer srv.Close()
	code, body := get(t, http.MethodPost, srv.URL+"/token?life=300ms", "grant_type=client_credentials")
	var tok struct {
		Access  string `json:"access_token"`
		Expires int64  `json:"expires_in"`
	}
	if err := json.Unmarshal([]byte(body), &tok); code != 200 || err != nil || tok.Access == "" {
		t.Fatalf("POST /token: %d %q %v", code, body, err)
	}
	ingest := func(auth string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/auth/ingest", strings.NewReader("{}\n"))
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 401 && !strings.Contains(resp.Header.Get("WWW-Authenticate"), "invalid_token") {
			t.Errorf("401 without WWW-Authenticate invalid_token: %q", resp.Header.Get("WWW-Authenticate"))
		}
		return resp.StatusCode
	}
	if c := ingest("Bearer " + tok.Access); c != http.StatusAccepted {
		t.Errorf("a live token: %d, want 202 from /ingest", c)
	}
	if _, st := get(t, http.MethodGet, srv.URL+"/ingest/stats", ""); !strings.Contains(st, `"accepted":1,`) {
		t.Errorf("/auth/ingest reached /ingest: stats %q, want 1 accepted", st)
	}
	for _, auth := range []string{"", "Bearer nope", tok.Access} {
		if c := ingest(auth); c != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %d, want 401", auth, c)
		}
	}
	time.Sleep(400 * time.Millisecond)
	if c := ingest("Bearer " + tok.Access); c != http.StatusUnauthorized {
		t.Errorf("an expired token: %d, want 401", c)
	}
	if issued, rejected := h.TokenStats(); issued != 1 || rejected != 4 {
		t.Errorf("stats: issued %d rejected %d, want 1 and 4", issued, rejected)
	}
	if _, s := get(t, http.MethodGet, srv.URL+"/token/stats", ""); s != "{\"issued\":1,\"rejected\":4}\n" {
		t.Errorf("GET /token/stats: %q", s)
	}
	if code, _ := get(t, http.MethodPost, srv.URL+"/token?life=48h", ""); code != http.StatusBadRequest {
		t.Errorf("life=48h: %d, want 400", code)
	}
	if code, body := get(t, http.MethodPost, srv.URL+"/token", ""); code != 200 || !strings.Contains(body, `"expires_in":3600`) {
		t.Errorf("default life (Options.TokenLife 1h): %d %q", code, body)
	}
}
