package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// TestRunVerifyHTTPAndCommand: `benchtui run` of an http group whose
// verify reads the server's count of accepted events (http) and a
// command's exit status: each entry shows as a check line, ok when the
// server accepted what was sent, FAIL (exit 1) when the command exits 4
// or the count is off.
func TestRunVerifyHTTPAndCommand(t *testing.T) {
	t.Parallel()
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
		code              int
		marks             []string
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

// TestMergeRunsHTTPVerifyOnMergedCounts: merge --plan runs an http entry
// once per merged step on the whole run's counts, as it does a sql one:
// the server's count of accepted events matches the merged requests (the
// shards' sum), not a shard's share, and the secret the server echoes is
// redacted in the check's note.
func TestMergeRunsHTTPVerifyOnMergedCounts(t *testing.T) {
	var asked atomic.Int64
	const token = "tok-merge-5ecret"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		fmt.Fprintf(w, `{"accepted": 90, "token": %q}`, r.Header.Get("X-Token"))
	}))
	defer srv.Close()
	t.Setenv("MERGE_API_TOKEN", token)
	path := writePlanText(t, fmt.Sprintf(`version: 1
groups:
  - id: ingest
    runner: http
    http: {requests: [{method: POST, url: "%[1]s/events"}]}
    load: {concurrency: 2}
    iterations: 90
    verify:
      - {name: accepted = visible, http: {url: "%[1]s/stats", json: "$.accepted"}, "==": "{{requests}}"}
      - {name: whoami, http: {url: "%[1]s/stats", json: "$.token", headers: {X-Token: "${MERGE_API_TOKEN}"}}, expect: nobody}
`, srv.URL))
	pl, err := loadMergePlan(path)
	if err != nil {
		t.Fatal(err)
	}
	a := &artifacts.Artifact{Group: artifacts.Group{ID: "ingest", Runner: "http"},
		Steps: []artifacts.Step{{Label: plan.Steps(pl.Groups[0], 0)[0].Label, Requests: 90}}}
	if err := verifyMerged(context.Background(), kinds, pl, a); err != nil {
		t.Fatal(err)
	}
	checks := a.Steps[0].Checks
	if len(checks) != 2 || !checks[0].OK || checks[0].Value != 90 || checks[1].OK {
		t.Fatalf("checks %+v; want accepted = visible ok at 90 and whoami failed", checks)
	}
	if strings.Contains(checks[1].Note, token) || !strings.Contains(checks[1].Note, plan.Redacted) {
		t.Errorf("whoami's note %q: want the token redacted", checks[1].Note)
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("the server was asked %d times; want once per entry", n)
	}
}
