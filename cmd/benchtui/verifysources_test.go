package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRunVerifyHTTPAndCommand: `benchtui run` of an http group whose
// verify reads the server's count of accepted events (http) and a
// command's exit status: each entry shows as a check line, ok when the
// server accepted what was sent, FAIL (exit 1) when the command exits 4
// or the count is off.
func TestRunVerifyHTTPAndCommand(t *testing.T) {
	var accepted, statsAsked atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /events", func(w http.ResponseWriter, r *http.Request) { accepted.Add(1) })
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		statsAsked.Add(1)
		fmt.Fprintf(w, `{"accepted": %d}`, accepted.Load())
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, c := range []struct {
		name, exit, limit string
		code               int
		marks              []string
	}{
		{"pass", "0", `"{{requests}}"`, exitOK, []string{"check ok   accepted = visible: ", "check ok   cleaner exits 0: "}},
		{"fail", "4", "61", exitFail, []string{"check FAIL accepted = visible: was 60 (got 60, want == 61)", "check FAIL cleaner exits 0: was 4 (got 4, want == 0)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			accepted.Store(0)
			asked := statsAsked.Load()
			path := writePlanText(t, fmt.Sprintf(`version: 1
groups:
  - id: ingest
    runner: http
    http: {requests: [{method: POST, url: "%[1]s/events"}]}
    load: {concurrency: 2}
    iterations: 60
    verify:
      - {name: accepted = visible, http: {url: "%[1]s/stats", json: "$.accepted"}, "==": %[2]s}
      - {name: cleaner exits 0, command: ["sh", "-c", "exit %[3]s"], value: exit_status, "==": 0}
`, srv.URL, c.limit, c.exit))
			out := t.TempDir()
			code, stdout, stderr := runCmd(t, cmdRun, path, "-o", out)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, c.code, stdout, stderr)
			}
			for _, m := range c.marks {
				if !strings.Contains(stdout, m) {
					t.Errorf("stdout lacks %q:\n%s", m, stdout)
				}
			}
			if n := accepted.Load(); n != 60 {
				t.Errorf("the server accepted %d events; want the 60 sent", n)
			}
			if n := statsAsked.Load() - asked; n != 1 {
				t.Errorf("/stats asked %d times; want once (no until)", n)
			}
		})
	}
}
