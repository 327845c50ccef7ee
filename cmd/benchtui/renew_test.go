package main

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/benchtui/benchtui/runners/demo"
)

// TestRunRenewsExpiringTokens: `benchtui run` of a flow whose token (the
// demo's, living 400 ms) renews on 401 writes the renewals and retries as
// counters that agree with the server's counts (tokens issued but each
// user's first; 401s served), passes checks on them, and counts no error.
func TestRunRenewsExpiringTokens(t *testing.T) {
	h := demo.NewHandler()
	srv := httptest.NewServer(h)
	defer srv.Close()
	plan := writePlanText(t, fmt.Sprintf(`version: 1
groups:
  - id: renew
    runner: http
    http:
      flow:
        - name: token
          once: true
          method: POST
          url: "%[1]s/token?life=400ms"
          capture: {token: {json: $.access_token}}
          renew: {on: {status: [401], header: WWW-Authenticate, header_match: invalid_token}}
        - name: ingest
          method: POST
          url: "%[1]s/auth/ingest"
          headers: {Authorization: "Bearer {{.token}}"}
          body: '{"n":{{seq}}}'
          expect_status: [202]
    load: {concurrency: 3}
    duration: 1500ms
    thresholds:
      error_rate: 0
      checks:
        - {figure: counters.retries, ">=": 3}
        - {figure: counters.renewals_failed, "==": 0}
`, srv.URL))
	out := t.TempDir()
	code, _, stderr := runCmd(t, cmdRun, plan, "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	st := loadArtifacts(t, out)["renew"].Steps[0]
	issued, rejected := h.TokenStats()
	c := st.Counters
	t.Logf("counters %v; server: %d tokens issued, %d 401s; checks %d", c, issued, rejected, len(st.Checks))
	if c["renewals"] != issued-3 || c["retries"] != rejected || st.Errors != 0 || len(st.Checks) != 3 {
		t.Errorf("counters %v, errors %d, checks %v; the server issued %d tokens to 3 users and served %d 401s",
			c, st.Errors, st.Checks, issued, rejected)
	}
}
