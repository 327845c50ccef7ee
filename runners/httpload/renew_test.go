package httpload

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/demo"
	"github.com/benchtui/benchtui/runners/flow"
)

// tokenTarget is the demo target's token stand-in on a loopback server;
// after downAfter tokens (0: never) its token route answers 503, counted.
type tokenTarget struct {
	h        *demo.Handler
	url      string
	down     atomic.Int64 // 503s the token route served
	accepted func(t *testing.T) int64
}

func newTokenTarget(t *testing.T, downAfter int64) *tokenTarget {
	tt := &tokenTarget{h: demo.NewHandler()}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if issued, _ := tt.h.TokenStats(); downAfter > 0 && r.URL.Path == "/token" && issued >= downAfter {
			io.Copy(io.Discard, r.Body)
			tt.down.Add(1)
			http.Error(w, "token service down", http.StatusServiceUnavailable)
			return
		}
		tt.h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	tt.url = srv.URL
	tt.accepted = func(t *testing.T) int64 {
		resp, err := http.Get(srv.URL + "/ingest/stats") // accepted at once; /ingest/count lags by the delivery
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var stats struct{ Accepted *int64 }
		if err := json.Unmarshal(b, &stats); err != nil || stats.Accepted == nil {
			t.Fatalf("/ingest/stats: %q %v", b, err)
		}
		return *stats.Accepted
	}
	return tt
}

// renewGroup is seed 003's writer: a token (once, renewed as renew says)
// and events sent with it to the guarded /auth/ingest.
const renewGroup = `  - id: renew
    runner: http
    http:
      client: %s
      flow:
        - name: token
          once: true
          method: POST
          url: "%s/token?life=%s"
          body: "grant_type=client_credentials"
          capture: {token: {json: $.access_token}}
          renew: %s
        - name: ingest
          method: POST
          url: "%[2]s/auth/ingest"
          headers: {Authorization: "Bearer {{.token}}"}
          body: '{"n":{{seq}}}'
          expect_status: [202]
    %[5]s
    duration: %[6]s
`

func runRenew(t *testing.T, tt *tokenTarget, client, life, renew, load, duration string) (artifacts.Step, time.Duration) {
	t.Helper()
	start := time.Now()
	st := runGroup(t, fmt.Sprintf(renewGroup, client, tt.url, life, renew, load, duration), nil).Steps[0]
	return st, time.Since(start)
}

// TestRenewOn401: tokens that live 300 ms are renewed when a request gets
// 401, and the request is sent again with the new token. The server's
// counts are the ground truth: every token but each user's first is a
// renewal, every 401 it served a retry, and no request is an error: each
// retried request counts once, by its retry; every event it accepted is
// a request of the step. Both clients.
func TestRenewOn401(t *testing.T) {
	t.Parallel()
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			tt := newTokenTarget(t, 0)
			st, _ := runRenew(t, tt, client, "300ms", "{on: {status: [401, 403]}}", "load: {concurrency: 4}", "2s")
			issued, rejected := tt.h.TokenStats()
			c := st.Counters
			t.Logf("counters %v; server: %d tokens issued, %d 401s; %d requests, %d errors", c, issued, rejected, st.Requests, st.Errors)
			// On a slow machine a 300 ms token can expire again before its
			// retry (a whole -race suite: 1 of 47): that retry's 401 is an
			// error (status 401), and its user backs off (kind renewal,
			// recorded under the once step's name). Every other 401 was
			// retried once.
			again, backoffs := st.Status["401"], st.ErrorKinds[runners.KindRenewal]
			if c[flow.CounterRenewals] != issued-4 || c[flow.CounterRetries]+again != rejected || c[flow.CounterRenewalsFailed] != 0 || rejected < 4 {
				t.Errorf("counters %v; the server issued %d tokens (4 users) and refused %d requests, %d refused again", c, issued, rejected, again)
			}
			ingest, token := st.ByName["ingest"], st.ByName["token"]
			// The ingest requests refused again are requests the server did
			// not accept. Errors stay a small part of the retries (6 for 38
			// at load 14: a 300 ms token outlived by its retry).
			if st.Errors != again+backoffs || st.Errors > 2+c[flow.CounterRetries]/4 || ingest.Requests-again != tt.accepted(t) || token.Requests != issued+backoffs {
				t.Errorf("errors %d %v; ingest %d requests, the server accepted %d; token %d, issued %d; status %v",
					st.Errors, st.ErrorKinds, ingest.Requests, tt.accepted(t), token.Requests, issued, st.Status)
			}
			if st.ExtraMS[flow.ExtraRetriedAttempt].Max <= 0 {
				t.Errorf("no %s timing: %v", flow.ExtraRetriedAttempt, st.ExtraMS)
			}
		})
	}
}

// TestRenewAfterTTL: a token renewed every second, before its 2 s life
// ends, is never refused: zero 401s, no retries, and again every token
// but each user's first is a renewal.
func TestRenewAfterTTL(t *testing.T) {
	t.Parallel()
	tt := newTokenTarget(t, 0)
	st, _ := runRenew(t, tt, "auto", "2s", "{after: 1s, on: {status: [401]}}", "load: {concurrency: 3}", "3500ms")
	issued, rejected := tt.h.TokenStats()
	c := st.Counters
	t.Logf("counters %v; server: %d tokens issued, %d 401s; %d requests, %d errors", c, issued, rejected, st.Requests, st.Errors)
	if rejected != 0 || c[flow.CounterRetries] != 0 || c[flow.CounterRenewals] != issued-3 || issued < 3+3*2 {
		t.Errorf("counters %v; the server issued %d tokens (3 users, each renewing at least twice), refused %d", c, issued, rejected)
	}
	if st.Errors != 0 || st.ByName["ingest"].Requests != tt.accepted(t) {
		t.Errorf("errors %d %v; %d sent, %d accepted", st.Errors, st.ErrorKinds, st.ByName["ingest"].Requests, tt.accepted(t))
	}
}

// TestRenewalThatFails: once the first 4 tokens are issued the token
// route answers 503. A renewal that fails is counted, the request it was
// for is an error, and the user backs off: its next request fails at once
// (kind renewal, not sent) and it waits (a closed loop) before it tries
// again, so the token route sees few attempts and the step ends on time,
// in a closed loop and an open one (where a user may never have had its
// first token: that backs off too).
func TestRenewalThatFails(t *testing.T) {
	t.Parallel()
	for _, load := range []string{"load: {concurrency: 4}", "load: {rate: 40, max_in_flight: 4}"} {
		t.Run(load, func(t *testing.T) {
			t.Parallel()
			tt := newTokenTarget(t, 4)
			st, took := runRenew(t, tt, "auto", "300ms", "{on: {status: [401]}}", load, "3s")
			_, rejected := tt.h.TokenStats()
			c, kinds, down := st.Counters, st.ErrorKinds, tt.down.Load()
			t.Logf("counters %v, errors %v; server: %d 503s, %d 401s; took %s", c, kinds, down, rejected, took)
			renewed := c[flow.CounterRenewals] - c[flow.CounterRenewalsFailed]
			if c[flow.CounterRenewalsFailed] < 1 || c[flow.CounterRenewalsFailed] > down || c[flow.CounterRetries] != renewed {
				t.Errorf("counters %v; the token route refused %d", c, down)
			}
			if kinds["status_5xx"] != down || kinds["status_4xx"]+c[flow.CounterRetries] != rejected || kinds[runners.KindRenewal] < 1 {
				t.Errorf("error kinds %v; the server refused %d tokens and %d requests", kinds, down, rejected)
			}
			// Each user tries the token route once per backoff (at least
			// 500 ms, doubling): four times in 3 s at most.
			if down > 4*4 || took > 8*time.Second {
				t.Errorf("the token route refused %d in a 3 s step that took %s (errors %v)", down, took, kinds)
			}
			if strings.HasPrefix(load, "load: {c") && st.Errors > 4*9 {
				t.Errorf("%d errors %v by 4 users backing off", st.Errors, kinds)
			}
		})
	}
}

// TestRenewalCannotLoop: tokens that expire at once make every retry fail
// again; the user then backs off instead of renewing on every request,
// and each retry that failed is an error.
func TestRenewalCannotLoop(t *testing.T) {
	t.Parallel()
	tt := newTokenTarget(t, 0)
	st, _ := runRenew(t, tt, "auto", "1ns", "{on: {status: [401]}}", "load: {concurrency: 2}", "2s")
	issued, rejected := tt.h.TokenStats()
	c := st.Counters
	t.Logf("counters %v, errors %v; server: %d tokens issued, %d 401s", c, st.ErrorKinds, issued, rejected)
	if c[flow.CounterRetries] != c[flow.CounterRenewals] || rejected != c[flow.CounterRetries]*2 || st.ErrorKinds["status_4xx"] != c[flow.CounterRetries] {
		t.Errorf("counters %v, 4xx %d; the server refused %d requests", c, st.ErrorKinds["status_4xx"], rejected)
	}
	if issued > 2*6 || st.ErrorKinds[runners.KindRenewal] == 0 {
		t.Errorf("%d tokens in 2 s for 2 users; error kinds %v", issued, st.ErrorKinds)
	}
}
