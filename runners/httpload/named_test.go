package httpload

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/artifacts/compare"
)

// routeCounter is a server of two routes that counts what it answered by
// route and status: /fast answers 200 at once; /slow takes 5 ms and
// answers 429 to every third request.
type routeCounter struct {
	mu     sync.Mutex
	routes map[string]int64
	status map[string]int64
	slow   int64
}

func (c *routeCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	code := http.StatusOK
	c.mu.Lock()
	if r.URL.Path == "/slow" {
		c.slow++
		if c.slow%3 == 0 {
			code = http.StatusTooManyRequests
		}
	}
	c.routes[r.URL.Path]++
	c.status[strconv.Itoa(code)]++
	c.mu.Unlock()
	if r.URL.Path == "/slow" {
		time.Sleep(5 * time.Millisecond)
	}
	w.WriteHeader(code)
}

// TestNamedFiguresAgreeWithTheServer: each named request's count is what
// the server answered on its route, the names add up to the step, the
// step's status counts are the server's, 429s are errors of the slow route
// only, and expect_status makes them not errors. Both HTTP clients, and
// a step repeated twice (its runs' figures added). Each run is 100
// requests per worker (about 300 to /slow, 100 of them 429s), not a
// second of a closed loop hammering /fast.
func TestNamedFiguresAgreeWithTheServer(t *testing.T) {
	t.Parallel()
	for _, client := range clients {
		for _, expect := range []string{"", ", expect_status: [200, 429]"} {
			t.Run(client+expect, func(t *testing.T) { testNamedFigures(t, client, expect, 1) })
		}
	}
	t.Run("repeat 2", func(t *testing.T) { testNamedFigures(t, "auto", "", 2) })
}

func testNamedFigures(t *testing.T, client, expect string, repeat int) {
	rc := &routeCounter{routes: map[string]int64{}, status: map[string]int64{}}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	a := runGroup(t, fmt.Sprintf(`  - id: named
    runner: http
    http:
      client: %s
      requests:
        - {name: ping, url: "%s/fast"}
        - {name: mixed, url: "%s/slow", weight: 3%s}
    load: {concurrency: 4}
    per_worker_iterations: 100
    max_duration: 20s
    repeat: %d
`, client, srv.URL, srv.URL, expect, repeat), nil)
	st := a.Steps[0]
	rc.mu.Lock()
	defer rc.mu.Unlock()
	ping, mixed := st.ByName["ping"], st.ByName["mixed"]
	if ping.Requests != rc.routes["/fast"] || mixed.Requests != rc.routes["/slow"] || ping.Requests+mixed.Requests != st.Requests {
		t.Errorf("by name ping %d, mixed %d of %d; the server answered /fast %d, /slow %d", ping.Requests, mixed.Requests, st.Requests, rc.routes["/fast"], rc.routes["/slow"])
	}
	if st.Status["200"] != rc.status["200"] || st.Status["429"] != rc.status["429"] || rc.status["429"] == 0 {
		t.Errorf("status counts %v, the server's %v", st.Status, rc.status)
	}
	wantErrs := rc.status["429"]
	if expect != "" {
		wantErrs = 0
	}
	if ping.Errors != 0 || mixed.Errors != wantErrs || mixed.ErrorKinds["status_4xx"] != wantErrs || st.Errors != wantErrs {
		t.Errorf("errors: ping %d, mixed %d %v, step %d; want the %d 429s of mixed (expect_status %q)", ping.Errors, mixed.Errors, mixed.ErrorKinds, st.Errors, wantErrs, expect)
	}
	// Each name's latency is its own route's: mixed's at least the 5 ms
	// its server sleeps, ping's below it (by how much depends on the
	// machine's load: 22 ms against 39 ms beside a busy suite).
	if ping.LatencyMS.P50 >= mixed.LatencyMS.P50 || mixed.LatencyMS.P50 < 5 {
		t.Errorf("p50: ping %.2f ms, mixed %.2f ms; want ping below mixed and mixed at least its 5 ms", ping.LatencyMS.P50, mixed.LatencyMS.P50)
	}
	assertLoadsBack(t, a)
}

// TestCompareJudgesEachName: a route that got three times as slow is
// judged worse on its own rows (p50[mixed]), each name on its own blocks.
// A starved machine adds its own delay to both (20 ms became 33 ms beside
// two burners), so the delta asked for is +50%, not the +200% of an idle one.
// 3 s in blocks of 500 ms gives at least 4 whole blocks a side on a busy
// machine: with 3 against 4 no Mann-Whitney test can reach p < 0.05 (2/35
// at best). Serial: beside the package's parallel tests a -p 3 suite
// starved the 20 ms route to a p50 of 123 ms and judged +30% "same".
func TestCompareJudgesEachName(t *testing.T) {
	run := func(slow time.Duration) *artifacts.Artifact {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				time.Sleep(slow)
			}
		}))
		defer srv.Close()
		return runGroup(t, fmt.Sprintf(`  - id: named
    runner: http
    http: {requests: [{name: ping, url: "%s/fast"}, {name: mixed, url: "%s/slow"}]}
    load: {concurrency: 4}
    duration: 3s
    block: 500ms
`, srv.URL, srv.URL), nil)
	}
	base, cur := run(20*time.Millisecond), run(60*time.Millisecond)
	cmp := compare.Compare([]*artifacts.Artifact{base}, []*artifacts.Artifact{cur}, compare.CompareOptions{})
	rows := map[string]compare.Row{}
	for _, r := range cmp.Rows {
		rows[r.Metric] = r
	}
	// The unchanged route's own row is there, judged on its own samples;
	// its verdict is left to the machine's noise (a busy machine may shift
	// a 0.2 ms p50 by more than 5%).
	mixed, ping := rows["p50[mixed]"], rows["p50[ping]"]
	if mixed.Verdict != compare.Worse || mixed.DeltaPct < 50 || ping.Metric == "" || ping.Test != compare.TestMannWhitney {
		t.Errorf("p50[mixed] %+v\np50[ping] %+v\nwant the slower route worse by its own samples, the other judged on its own", mixed, ping)
	}
	if n := cur.Steps[0].ByName["mixed"].Samples.N(artifacts.SampleP50); n < 4 {
		t.Errorf("mixed has %d p50 samples, want one a block", n)
	}
}
