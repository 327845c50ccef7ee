package httpload

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// TestSeqIsSharedByTheGroupsWorkers: {{seq}} numbers the group's
// requests from 1, shared by its workers and kept across its steps, as
// the postgres runner's $seq does: 4 workers, then 2, send 1 to 40 once
// each, never a number twice.
func TestSeqIsSharedByTheGroupsWorkers(t *testing.T) {
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			var mu sync.Mutex
			seen := map[int]int{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n, err := strconv.Atoi(r.URL.Query().Get("n"))
				mu.Lock()
				seen[n]++
				mu.Unlock()
				if err != nil {
					w.WriteHeader(http.StatusBadRequest)
				}
			}))
			t.Cleanup(srv.Close)
			a := runGroup(t, fmt.Sprintf(`  - id: seq
    runner: http
    http: {client: %s, requests: [{url: "%s/?n={{seq}}"}]}
    load: {concurrency: 4}
    sweep: {concurrency: [4, 2]}
    iterations: 20
    max_duration: 20s
`, client, srv.URL), nil)
			mu.Lock()
			defer mu.Unlock()
			for n := 1; n <= 40; n++ {
				if seen[n] != 1 {
					t.Errorf("{{seq}} %d sent %d times; want 1 to 40 once each (steps %d, sent %v)", n, seen[n], len(a.Steps), seen)
					break
				}
			}
			if len(seen) != 40 {
				t.Errorf("%d distinct numbers, want 40", len(seen))
			}
		})
	}
}
