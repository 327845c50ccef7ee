package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestFetchProfileRefusals: a reply that is not 200, not gzip'd (the
// ?debug=1 text form) or too slow is refused with a reason.
func TestFetchProfileRefusals(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		case "/text":
			w.Write([]byte("heap profile: 1: 2 [3: 4] @ heap/1048576\n"))
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case "/ok":
			w.Write([]byte{0x1f, 0x8b, 8, 0})
		}
	}))
	defer srv.Close()
	for path, want := range map[string]string{
		"/missing": "404 Not Found",
		"/text":    "not a gzip'd profile",
		"/slow":    "deadline exceeded",
	} {
		_, err := fetchProfile(context.Background(), srv.URL+path, 200*time.Millisecond)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if b, err := fetchProfile(context.Background(), srv.URL+"/ok", time.Second); err != nil || len(b) != 4 {
		t.Errorf("/ok: %d bytes, %v", len(b), err)
	}
}
