package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/httpload"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/plan"
)

// ingestServer accepts events at POST /events and stores them behind a
// queue that a background loop drains, a few every 50 ms: /stats shows
// {"accepted", "stored", "queue", "lost", "token"}, where lost is always
// 2 and token echoes the request's X-Token (a server that leaks a
// secret into its reply).
type ingestServer struct {
	*httptest.Server
	mu               sync.Mutex
	accepted, stored int
	statsAsked       int
	stop             chan struct{}
	wg               sync.WaitGroup
}

func newIngestServer(t *testing.T) *ingestServer {
	t.Helper()
	s := &ingestServer{stop: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /events", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.accepted++
		s.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.statsAsked++
		stats := map[string]any{"accepted": s.accepted, "stored": s.stored, "queue": s.accepted - s.stored, "lost": 2, "token": r.Header.Get("X-Token")}
		s.mu.Unlock()
		_ = json.NewEncoder(w).Encode(stats)
	})
	s.Server = httptest.NewServer(mux)
	s.wg.Add(1)
	go s.drain()
	t.Cleanup(func() {
		close(s.stop)
		s.wg.Wait()
		s.Close()
	})
	return s
}

// drain stores up to 5 queued events every 50 ms.
func (s *ingestServer) drain() {
	defer s.wg.Done()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
		s.mu.Lock()
		s.stored = min(s.accepted, s.stored+5)
		s.mu.Unlock()
	}
}

// TestVerifyNonSQLSourcesThroughTheEngine: an http group posts events;
// after its step, its verify entries read the server's stats (http), a
// probe of the group and a command, and judge them on the step's counts.
// The store lags behind (a queue drained 100 events/s), so "accepted =
// stored" holds only after polls; "nothing lost" fails; the secret the
// server echoes is redacted in the artifact.
func TestVerifyNonSQLSourcesThroughTheEngine(t *testing.T) {
	t.Parallel()
	srv := newIngestServer(t)
	const token = "tok-5ecret-value"
	src := fmt.Sprintf(`version: 1
groups:
  - id: ingest
    runner: http
    http:
      requests: [{name: post, method: POST, url: "%[1]s/events", expect_status: [202]}]
    load: {concurrency: 4}
    iterations: 200
    probes:
      - {name: queue, interval: 100ms, http: {url: "%[1]s/stats", json: "$.queue"}}
    verify:
      - {name: accepted = stored, http: {url: "%[1]s/stats", json: "$.stored"}, "==": "{{requests}}", until: 30s}
      - {name: queue drained, probe: queue, "==": 0, until: 30s}
      - {name: count unchanged, command: ["sh", "-c", "echo $1", "sh", "{{group.requests}}"], expect: "{{requests}}"}
      - {name: by name, command: ["sh", "-c", "echo $1", "sh", "{{3 * by_name.post.requests}}"], "==": "{{ 3*by_name.post.requests }}"}
      - {name: by name's errors, http: {url: "%[1]s/stats", json: "$.lost"}, "<=": "{{by_name.post.errors}}"}
      - {name: no such name, http: {url: "%[1]s/stats", json: "$.stored"}, "==": "{{by_name.nope.requests}}"}
      - {name: nothing lost, http: {url: "%[1]s/stats", json: "$.lost"}, "==": 0}
      - {name: whoami, http: {url: "%[1]s/stats", json: "$.token", headers: {X-Token: "${API_TOKEN}"}}, expect: nobody}
`, srv.URL)
	reg := runners.MustRegistry(httpload.Kind(), pgload.Kind())
	lookup := func(k string) (string, bool) { return token, k == "API_TOKEN" }
	p, err := plan.ParsePlan("test.yaml", []byte(src), lookup, reg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(reg, p, p.Groups[0], SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s.Start(ctx)
	for range s.Snapshots() {
	}
	<-s.Done()
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	a := s.Result()
	st := a.Steps[0]
	srv.mu.Lock()
	accepted, stored := srv.accepted, srv.stored
	srv.mu.Unlock()
	if st.Requests != 200 || accepted != 200 || stored != 200 {
		t.Fatalf("requests %d, the server accepted %d and stored %d; want 200 each", st.Requests, accepted, stored)
	}
	got := map[string]artifacts.Check{}
	for _, c := range st.Checks {
		got[c.Name] = c
	}
	for _, name := range []string{"accepted = stored", "queue drained", "count unchanged"} {
		if c := got[name]; !c.OK {
			t.Errorf("%s: %+v; want ok", name, c)
		}
	}
	if c := got["by name"]; !c.OK || c.Value != 600 {
		t.Errorf("by name: %+v; want ok with 3 × 200", c)
	}
	if c := got["by name's errors"]; c.OK || !strings.Contains(c.Note, "got 2, want <= 0") {
		t.Errorf("by name's errors: %+v; want failed against post's 0 errors", c)
	}
	if c := got["no such name"]; c.OK || !strings.Contains(c.Note, "by_name.nope.requests") {
		t.Errorf("no such name: %+v; want failed naming the count the step lacks", c)
	}
	if c := got["accepted = stored"]; c.Value != 200 || c.TimeToPassS < 0 {
		t.Errorf("accepted = stored: %+v; want the value 200", c)
	}
	if c := got["nothing lost"]; c.OK || c.Value != 2 || !strings.Contains(c.Note, "got 2, want == 0") {
		t.Errorf("nothing lost: %+v; want failed with 2", c)
	}
	t.Logf("checks: %+v", st.Checks)
	who := got["whoami"]
	if who.OK || !strings.Contains(who.Note, plan.Redacted) {
		t.Errorf("whoami: %+v; want failed with the echoed token redacted", who)
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), token) {
		t.Errorf("the artifact holds the secret: %s", b)
	}
}
