package httpload

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

func init() { mixClients = append(mixClients, clientEpoll) }

// TestEpollLargeReplies: replies far larger than the reply buffer, framed
// by Content-Length and chunked, over kept-alive connections: every one
// is read whole (no error, the connections stay in step).
func TestEpollLargeReplies(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("y", 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			for range 4 {
				w.Write([]byte(big[:100<<10]))
				w.(http.Flusher).Flush()
			}
			return
		}
		w.Write([]byte(big))
	}))
	t.Cleanup(srv.Close)
	st := runGroup(t, fmt.Sprintf(`  - id: big
    runner: http
    http:
      client: epoll
      requests: [{url: "%[1]s/length"}, {url: "%[1]s/chunked"}, {url: "%[1]s/head", method: HEAD}]
    load: {concurrency: 3}
    duration: 1s
`, srv.URL), nil).Steps[0]
	if st.Requests < 10 || st.Errors != 0 {
		t.Errorf("requests=%d errors=%d %v, want many and none failed", st.Requests, st.Errors, st.ErrorKinds)
	}
}

// TestEpollHostileServer: a server that sends an endless head, or a body
// that never ends, costs the client no more than its buffer: the first is
// an error as soon as the buffer is full, the second times out, and the
// step ends on time.
func TestEpollHostileServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go endless(conn)
		}
	}()
	start := time.Now()
	st := runGroup(t, fmt.Sprintf(`  - id: hostile
    runner: http
    http:
      client: epoll
      timeout: 300ms
      requests: [{url: "http://%[1]s/head"}, {url: "http://%[1]s/body"}]
    load: {concurrency: 2}
    duration: 1s
`, ln.Addr()), nil).Steps[0]
	if st.ErrorKinds["other"] == 0 || st.ErrorKinds["timeout"] == 0 || st.Errors != st.Requests {
		t.Errorf("errors %v of %d requests: want the endless head's (other) and body's (timeout)", st.ErrorKinds, st.Requests)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the step took %s", took)
	}
}

// endless answers /head with a head that never ends and anything else
// with a body that never ends.
func endless(conn net.Conn) {
	defer conn.Close()
	buf := make([]byte, 4096)
	n, _ := conn.Read(buf)
	chunk := []byte(strings.Repeat("x", 4096))
	if strings.Contains(string(buf[:n]), "/head") {
		conn.Write([]byte("HTTP/1.1 200 OK\r\nX-Endless: "))
	} else {
		conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n"))
	}
	for {
		if _, err := conn.Write(chunk); err != nil {
			return
		}
	}
}

// TestEpollStopsMidRequest: requests to a server slower than the step
// are cut when the step's grace ends: the run returns promptly.
func TestEpollStopsMidRequest(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		select {
		case <-release:
		case <-time.After(20 * time.Second):
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	start := time.Now()
	st := runGroup(t, fmt.Sprintf(`  - id: slow
    runner: http
    http: {client: epoll, timeout: 30s, requests: [{url: "%s/"}]}
    load: {concurrency: 4}
    duration: 500ms
`, srv.URL), nil).Steps[0]
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("the run took %s against a 500ms step", took)
	}
	if st.Requests > 4 {
		t.Errorf("requests = %d, want at most one per connection", st.Requests)
	}
}

// TestEpollPlanErrors: what client: epoll does not serve is a plan error
// at its key.
func TestEpollPlanErrors(t *testing.T) {
	for name, c := range map[string]struct{ http, load string }{
		"flow":     {`{client: epoll, flow: [{url: "http://127.0.0.1:1/"}]}`, `{concurrency: 1}`},
		"template": {`{client: epoll, requests: [{url: "http://127.0.0.1:1/{{seq}}"}]}`, `{concurrency: 1}`},
		"https":    {`{client: epoll, requests: [{url: "https://127.0.0.1:1/"}]}`, `{concurrency: 1}`},
	} {
		err := parseErr(fmt.Sprintf("  - id: g\n    runner: http\n    http: %s\n    load: %s\n    duration: 1s\n", c.http, c.load))
		if err == nil || !strings.Contains(err.Error(), "group g: http.client: epoll: it") {
			t.Errorf("%s: %v, want an error at http.client", name, err)
		}
	}
}

// TestEpollPipelineCountsHonestly: 8 requests pipelined on each of 2
// connections to a server that answers each in 5 ms, one after another:
// the server served what the artifact counts, and each request's latency
// runs from its own send, so it includes the wait behind the 7 before it
// (about 40 ms), not the 5 ms a client timing only the first would see.
// 2 s: a 1 s step beside a busy suite was starved whole (101/s, p50 97
// ms).
func TestEpollPipelineCountsHonestly(t *testing.T) {
	srv, served := runnertest.CountingServer(t, 5*time.Millisecond)
	st := runGroup(t, fmt.Sprintf(`  - id: pipe
    runner: http
    http: {client: epoll, pipeline: 8, requests: [{url: "%s/a"}, {url: "%s/b", method: HEAD}]}
    load: {concurrency: 2}
    duration: 2s
`, srv.URL, srv.URL), nil).Steps[0]
	t.Logf("requests=%d served=%d p50=%.1fms throughput=%.0f/s", st.Requests, served.Load(), st.LatencyMS.P50, st.ThroughputRPS)
	if st.Requests != served.Load() || st.Errors != 0 {
		t.Errorf("requests=%d errors=%d %v, the server served %d", st.Requests, st.Errors, st.ErrorKinds, served.Load())
	}
	if p50 := st.LatencyMS.P50; p50 < 35 || p50 > 70 {
		t.Errorf("p50 = %.1fms, want about 8 x 5ms: each request from its own send", p50)
	}
	// 2 connections of 5 ms a reply: at most 400/s, and near it.
	if st.ThroughputRPS > 420 || st.ThroughputRPS < 200 {
		t.Errorf("throughput %.0f/s, want near the server's 400/s", st.ThroughputRPS)
	}
}

// TestEpollPipelineServerCloses: a server that closes the connection
// after every third reply leaves the requests pipelined behind it
// unanswered: they fail or are sent again, and no success is counted that
// the server did not serve.
func TestEpollPipelineServerCloses(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%3 == 0 {
			w.Header().Set("Connection", "close")
		}
	}))
	t.Cleanup(srv.Close)
	st := runGroup(t, fmt.Sprintf(`  - id: closes
    runner: http
    http: {client: epoll, pipeline: 4, requests: [{url: "%s/"}]}
    load: {concurrency: 2}
    duration: 1s
`, srv.URL), nil).Steps[0]
	if ok := st.Requests - st.Errors; ok == 0 || ok > n.Load() {
		t.Errorf("%d succeeded (%d requests, errors %v), the server answered %d", ok, st.Requests, st.ErrorKinds, n.Load())
	}
}

// TestPipelinePlanErrors: a pipeline needs client: epoll, kept-alive
// connections, one host:port, and a depth in range.
func TestPipelinePlanErrors(t *testing.T) {
	for http, want := range map[string]string{
		`{pipeline: 4, requests: [{url: "http://127.0.0.1:1/"}]}`:                                      "pipeline: needs client: epoll",
		`{client: epoll, pipeline: 4, connection: fresh, requests: [{url: "http://127.0.0.1:1/"}]}`:    "not connection: fresh",
		`{client: epoll, pipeline: 4, requests: [{url: "http://127.0.0.1:1/"}, {url: "http://h:2/"}]}`: "goes to one host:port",
		`{client: epoll, pipeline: 5000, requests: [{url: "http://127.0.0.1:1/"}]}`:                    "want 1 to 1024",
	} {
		err := parseErr("  - id: g\n    runner: http\n    http: " + http + "\n    load: {concurrency: 1}\n    duration: 1s\n")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", http, err, want)
		}
	}
}

// TestEpollOneP: on one P (a generator pinned to one core, shared here
// with the server) counts and latency stay the server's.
func TestEpollOneP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	testClosedLoopAccuracyAndCounts(t, clientEpoll)
}
