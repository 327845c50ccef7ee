package httpload

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/flow"
)

// ingestServer answers /json with the counts of an ingest (every 7th
// reports 19 duplicates instead of 20, every 11th fails with a 500 whose
// body would fail the assertions too), /frames with 1 to 3 event frames
// (every 10th reply also "torn"), and /ack/ID. It counts what it wrote.
type ingestServer struct {
	mu                    sync.Mutex
	json, frames, served  int64
	badJSON, fivexx, torn int64
	framesWritten, acks   int64
	ackedIDs              map[string]int64
}

func (s *ingestServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.served++
	switch {
	case r.URL.Path == "/json":
		s.json++
		n := s.json
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		dups := 20
		switch {
		case n%11 == 0:
			s.fivexx++
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"accepted":5}`)
			return
		case n%7 == 0:
			s.badJSON++
			dups = 19
		}
		fmt.Fprintf(w, `{"accepted":0,"duplicates":%d,"id":"i%d"}`, dups, n)
	case r.URL.Path == "/frames":
		s.frames++
		n := s.frames
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 1 + n%3 {
			fmt.Fprintf(w, "data: %d.%d\n\n", n, i)
			s.framesWritten++
		}
		if n%10 == 0 {
			s.torn++
			fmt.Fprint(w, "event: torn\n\n")
		}
	case strings.HasPrefix(r.URL.Path, "/ack/"):
		s.acks++
		if s.ackedIDs == nil {
			s.ackedIDs = map[string]int64{}
		}
		s.ackedIDs[strings.TrimPrefix(r.URL.Path, "/ack/")]++
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func startIngest(t *testing.T) (*ingestServer, string) {
	s := &ingestServer{}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

// TestAssertionsJudgeAMix: in a mix, each reply that fails an assertion
// is an error of kind assertion under its request's name, exactly as many
// as the server wrote wrong (torn frames, 19 duplicates); a 500 stays a
// status error, not asserted; the tally counts every frame the server
// wrote into counters.frames, which a threshold check reads; and the error
// samples say which assertion failed on what value. Both clients.
func TestAssertionsJudgeAMix(t *testing.T) {
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			s, st := runIngest(t, mixGroup, client)
			defer s.mu.Unlock()
			judgeMix(t, s, st)
		})
	}
}

const mixGroup = `  - id: mix
    runner: http
    http:
      client: %s
      requests:
        - name: ingest
          method: POST
          url: "%[2]s/json"
          assert:
            - {json: $.accepted, "==": 0}
            - {json: $.duplicates, "==": "{{.dups}}"}
            - {json: $.id, match: '^i[0-9]+$'}
            - {json: $.rejected, absent: true}
            - {header: Content-Type, match: '^application/json'}
        - name: frames
          url: "%[2]s/frames"
          assert: [{body: 'torn|mismatch', absent: true}]
          tally: {frames: '(?m)^data: '}
    vars: {dups: [20]}
    load: {concurrency: 4}
    iterations: 400
    max_duration: 30s
    thresholds: {checks: [{figure: counters.frames, ">": 0}]}
`

// runIngest runs group (a format of the client and the server's URL)
// against an ingest server; it returns the server locked, and the step.
func runIngest(t *testing.T, group, client string) (*ingestServer, artifacts.Step) {
	s, url := startIngest(t)
	st := runGroup(t, fmt.Sprintf(group, client, url), nil).Steps[0]
	s.mu.Lock()
	return s, st
}

func judgeMix(t *testing.T, s *ingestServer, st artifacts.Step) {
	t.Helper()
	ingest, frames := st.ByName["ingest"], st.ByName["frames"]
	if st.Requests != 400 || s.served != 400 || s.torn == 0 || s.badJSON == 0 || s.fivexx == 0 {
		t.Fatalf("%d requests, the server served %d (%d torn, %d bad, %d 500s): want 400 and some of each", st.Requests, s.served, s.torn, s.badJSON, s.fivexx)
	}
	if frames.Requests != s.frames || frames.Errors != s.torn || frames.ErrorKinds[flow.KindAssertion] != s.torn {
		t.Errorf("frames: %d requests, errors %d %v; the server wrote %d replies, %d torn", frames.Requests, frames.Errors, frames.ErrorKinds, s.frames, s.torn)
	}
	if ingest.ErrorKinds[flow.KindAssertion] != s.badJSON || ingest.ErrorKinds["status_5xx"] != s.fivexx || ingest.Errors != s.badJSON+s.fivexx {
		t.Errorf("ingest: errors %v; the server wrote %d with 19 duplicates and %d 500s", ingest.ErrorKinds, s.badJSON, s.fivexx)
	}
	if st.ErrorKinds[flow.KindAssertion] != s.torn+s.badJSON {
		t.Errorf("step: error kinds %v", st.ErrorKinds)
	}
	if st.Counters["frames"] != s.framesWritten {
		t.Errorf("counters.frames %d; the server wrote %d frames", st.Counters["frames"], s.framesWritten)
	}
	if len(st.Checks) != 1 || !st.Checks[0].OK || st.Checks[0].Value != float64(s.framesWritten) {
		t.Errorf("checks %+v, want counters.frames > 0 passed at %d", st.Checks, s.framesWritten)
	}
	// Latency is measured for an assertion's error as for any answered
	// request: every request is in the step's histogram.
	if h, err := artifacts.DecodeHistogram(st.Histogram); err != nil || h.TotalCount() != st.Requests {
		t.Errorf("the histogram (%v) holds not the %d requests' latencies", err, st.Requests)
	}
	wantSamples := []string{`assert[0] body: matched "torn|mismatch": "torn"`, `assert[1] $.duplicates: got 19, want == 20`}
	for _, want := range wantSamples {
		if !containsSample(st.ErrorSamples[flow.KindAssertion], want) {
			t.Errorf("error samples %q lack %q", st.ErrorSamples[flow.KindAssertion], want)
		}
	}
}

func containsSample(samples []string, want string) bool {
	for _, s := range samples {
		if s == want {
			return true
		}
	}
	return false
}

// TestAssertionEndsAFlowIteration: in a flow, a step whose reply fails an
// assertion is an error of kind assertion and ends the iteration as a
// failed capture does: the step after it is not sent, and every ack the
// server saw carried an id whose ingest held. Both clients.
func TestAssertionEndsAFlowIteration(t *testing.T) {
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			s, st := runIngest(t, flowAssertGroup, client)
			defer s.mu.Unlock()
			ingest, ack := st.ByName["ingest"], st.ByName["ack"]
			good := s.json - s.badJSON - s.fivexx
			if s.json != 150 || ingest.ErrorKinds[flow.KindAssertion] != s.badJSON || ingest.ErrorKinds["status_5xx"] != s.fivexx {
				t.Errorf("ingest: %d sent, errors %v; the server wrote %d with 19 duplicates and %d 500s", s.json, ingest.ErrorKinds, s.badJSON, s.fivexx)
			}
			if ack.Requests != good || s.acks != good || ack.Errors != 0 {
				t.Errorf("ack: %d sent (server: %d), %d errors; want one per ingest that held, %d", ack.Requests, s.acks, ack.Errors, good)
			}
			for id, n := range s.ackedIDs {
				var k int64
				if _, err := fmt.Sscanf(id, "i%d", &k); err != nil || n != 1 || k%7 == 0 || k%11 == 0 {
					t.Errorf("acked %q %d times: want each held ingest's id once", id, n)
				}
			}
		})
	}
}

const flowAssertGroup = `  - id: flow
    runner: http
    http:
      client: %s
      flow:
        - name: ingest
          method: POST
          url: "%[2]s/json"
          capture: {id: {json: $.id}}
          assert: [{json: $.duplicates, "==": 20}, {header: content-type, match: json}]
        - name: ack
          url: "%[2]s/ack/{{.id}}"
          assert: [{header: Content-Length, "==": 0}]
    load: {concurrency: 3}
    iterations: 150
    max_duration: 30s
`

// TestAssertionPlanErrors: each bad assert entry or tally is a plan error
// at the entry's line (a tally at the section's), naming the field; an
// assertion's limit may read the group's vars, and one it does not have
// is refused; epoll refuses assertions at http.client.
func TestAssertionPlanErrors(t *testing.T) {
	err := parseErr(`  - id: g
    runner: http
    http:
      requests:
        - url: "http://127.0.0.1:1/x"
          assert:
            - {json: $.a, "==": 1, "!=": 2}
            - {json: "$[", "==": 0}
            - {json: $.a}
            - {json: $.a, header: X, absent: true}
            - {body: '(', absent: true}
            - {json: $.a, "==": "{{.nope}}"}
            - {json: $.a, "<": few}
          tally: {frames: '(', "bad name": x}
    load: {concurrency: 1}
    duration: 1s
`)
	wantErrors(t, err,
		`p.yaml:9:15: group g: http.requests[0].assert[0]: one operator per entry, got == and !=`,
		`p.yaml:10:15: group g: http.requests[0].assert[1]: json: `,
		`p.yaml:11:15: group g: http.requests[0].assert[2]: want one check of the value: an operator (==, !=, <, <=, >, >=, between), match, or absent`,
		`p.yaml:12:15: group g: http.requests[0].assert[3]: want exactly one of json, header or body`,
		`p.yaml:13:15: group g: http.requests[0].assert[4].body: error parsing regexp`,
		`p.yaml:14:15: group g: http.requests[0].assert[5].==: template: `,
		`p.yaml:15:15: group g: http.requests[0].assert[6].<: want a number, got "few"`,
		`group g: http.requests[0].tally.frames: error parsing regexp`,
		`group g: http.requests[0].tally.bad name: want a counter name`,
	)
	// The operator is the key, as in verify and threshold checks.
	err = parseErr(`  - id: o
    runner: http
    http: {requests: [{url: "http://127.0.0.1:1/x", assert: [{json: $.a, op: "==", value: 0}]}]}
    load: {concurrency: 1}
    duration: 1s
`)
	wantErrors(t, err, `p.yaml:5:74: groups[0].http.requests[0].assert[0].op: unknown key (known: !=, <, <=, ==, >, >=, absent, between, body, header, json, match)`)
	if epollSupported {
		err = parseErr(`  - id: e
    runner: http
    http:
      client: epoll
      requests: [{url: "http://127.0.0.1:1/x", tally: {frames: x}}]
    load: {concurrency: 1}
    duration: 1s
`)
		wantErrors(t, err, `group e: http.client: epoll: it judges no replies: no assert or tally; use client: auto`)
	}
}
