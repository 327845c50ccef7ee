package httpload

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestLeanClientReadsEveryFraming sends requests whose replies are framed
// by Content-Length, chunked encoding, connection close and HEAD, several
// times over one connection, and checks each status and that the
// connection stays in step.
func TestLeanClientReadsEveryFraming(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/chunked":
			w.WriteHeader(203)
			for range 3 {
				w.Write([]byte(strings.Repeat("x", 5000)))
				w.(http.Flusher).Flush()
			}
		case "/close":
			w.Header().Set("Connection", "close")
			w.WriteHeader(202)
			w.Write([]byte("bye"))
		case "/post":
			if r.ContentLength != 7 {
				w.WriteHeader(400)
			}
		default:
			w.Write([]byte("hello"))
		}
	}))
	defer srv.Close()
	c := &leanConn{timeout: 5 * time.Second}
	defer c.stop()
	cases := []struct {
		req  Request
		want int
	}{
		{Request{URL: srv.URL + "/plain"}, 200},
		{Request{URL: srv.URL + "/chunked"}, 203},
		{Request{URL: srv.URL + "/plain", Method: "HEAD"}, 200},
		{Request{URL: srv.URL + "/close"}, 202},
		{Request{URL: srv.URL + "/post", Method: "POST", Body: `{"n":1}`}, 200},
		{Request{URL: srv.URL + "/chunked"}, 203},
	}
	for round := range 3 {
		for _, tc := range cases {
			lr, err := serialize(&tc.req, nil, true)
			if err != nil {
				t.Fatal(err)
			}
			code, err := c.roundTrip(context.Background(), &lr, nil)
			if err != nil || code != tc.want {
				t.Fatalf("round %d %s %s: code %d err %v, want %d", round, tc.req.Method, tc.req.URL, code, err, tc.want)
			}
		}
	}
}

func TestLeanOnlyForPlainHTTP1(t *testing.T) {
	for spec, want := range map[*Spec]bool{
		{Requests: []Request{{URL: "http://127.0.0.1:1/"}}}:                     true,
		{Requests: []Request{{URL: "https://127.0.0.1:1/"}}}:                    false,
		{Requests: []Request{{URL: "http://127.0.0.1:1/"}}, Protocol: "h2c"}:    false,
		{Requests: []Request{{URL: "http://u:p@127.0.0.1:1/"}}}:                 false,
		{Requests: []Request{{URL: "http://127.0.0.1:1/"}}, Client: "net/http"}: false,
	} {
		if got := NewRunner(spec).lean != nil; got != want {
			t.Errorf("%+v: lean %v, want %v", spec, got, want)
		}
	}
}

// TestLeanClientReadsRepliesLargerThanItsBuffer: a reply bigger than the
// reader's buffer leaves data in the socket after a full read; the next
// read must not wait for an edge that never comes.
func TestLeanClientReadsRepliesLargerThanItsBuffer(t *testing.T) {
	big := strings.Repeat("y", 200<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(big))
	}))
	defer srv.Close()
	c := &leanConn{timeout: 2 * time.Second}
	defer c.stop()
	lr, err := serialize(&Request{URL: srv.URL + "/big"}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		start := time.Now()
		if code, err := c.roundTrip(context.Background(), &lr, nil); err != nil || code != 200 {
			t.Fatalf("request %d: code %d err %v", i, code, err)
		}
		if took := time.Since(start); took > time.Second {
			t.Fatalf("request %d took %s: a read waited for data already there", i, took)
		}
	}
}

// TestSerializeRefusesSmuggling: the lean client writes the wire itself,
// so it refuses a method or header that would end a line early, even from
// a caller that skipped the plan's validation.
func TestSerializeRefusesSmuggling(t *testing.T) {
	for _, r := range []Request{
		{URL: "http://127.0.0.1:1/", Headers: map[string]string{"X": "a\r\n\r\nGET /ADMIN HTTP/1.1"}},
		{URL: "http://127.0.0.1:1/", Headers: map[string]string{"X\r\nEvil": "1"}},
		{URL: "http://127.0.0.1:1/", Method: "GET / HTTP/1.1\r\nX-Evil: 1\r\n"},
	} {
		if lr, err := serialize(&r, nil, true); err == nil {
			t.Errorf("serialize(%+v) = %q, want an error", r, lr.wire)
		}
	}
}
