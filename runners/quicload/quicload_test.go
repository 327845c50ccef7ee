package quicload

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/benchtui/benchtui/runners/demo"
)

func streamSpec(addr net.Addr, conn, request string) Spec {
	return Spec{
		Addr: addr.String(), Request: request, Connection: conn,
		InsecureSkipVerify: true, HandshakeTimeout: durationOf(2 * time.Second),
	}
}

func TestStreamPooledExactCounts(t *testing.T) {
	srv, _ := startDemo(t)
	s := streamSpec(srv.Addr(), ConnPooled, "FETCH /guide.md\n")
	s.Expect = "# /guide.md"
	r := prepared(t, s)
	rec := newTestRec()
	res := runOps(t, r, rec, 4, 50)
	if res.kinds[""] != 200 || len(res.kinds) != 1 {
		t.Fatalf("outcomes %v, want 200 successes", res.kinds)
	}
	if got := srv.Streams(); got != 200 {
		t.Errorf("server answered %d streams, want 200", got)
	}
	if got := srv.Conns(); got != 1 {
		t.Errorf("server saw %d connections, want 1 pooled", got)
	}
	if hs := rec.extra("handshake"); len(hs) != 0 {
		t.Errorf("pooled recorded %d handshakes, want none (opened in Prepare)", len(hs))
	}
}

func TestFreshRecordsHandshakeAndIsSlower(t *testing.T) {
	srv, _ := startDemo(t)
	pooled := runOps(t, prepared(t, streamSpec(srv.Addr(), ConnPooled, "ECHO hi")), newTestRec(), 2, 30)
	rec := newTestRec()
	fresh := runOps(t, prepared(t, streamSpec(srv.Addr(), ConnFresh, "ECHO hi")), rec, 2, 30)
	if fresh.kinds[""] != 60 || pooled.kinds[""] != 60 {
		t.Fatalf("outcomes fresh %v pooled %v, want 60 successes each", fresh.kinds, pooled.kinds)
	}
	if hs := rec.extra("handshake"); len(hs) != 60 {
		t.Errorf("fresh recorded %d handshakes, want 60", len(hs))
	}
	if got := srv.Conns(); got != 61 {
		t.Errorf("server saw %d connections, want 1 pooled + 60 fresh", got)
	}
	if fresh.mean() <= pooled.mean() {
		t.Errorf("fresh mean %v not slower than pooled %v", fresh.mean(), pooled.mean())
	}
	t.Logf("mean per operation: pooled %v, fresh %v", pooled.mean(), fresh.mean())
}

func TestPoolOfThree(t *testing.T) {
	srv, _ := startDemo(t)
	s := streamSpec(srv.Addr(), ConnPooled, "ECHO x")
	s.Pool = 3
	res := runOps(t, prepared(t, s), newTestRec(), 6, 10)
	if res.kinds[""] != 60 || srv.Conns() != 3 {
		t.Errorf("outcomes %v over %d connections, want 60 over 3", res.kinds, srv.Conns())
	}
}

func TestPerWorkerConnections(t *testing.T) {
	srv, _ := startDemo(t)
	r := prepared(t, streamSpec(srv.Addr(), ConnPerWorker, "ECHO x"))
	res := runOps(t, r, newTestRec(), 3, 10)
	if res.kinds[""] != 30 {
		t.Fatalf("outcomes %v, want 30 successes", res.kinds)
	}
	if got := srv.Conns(); got != 3 {
		t.Errorf("server saw %d connections, want 3", got)
	}
}

func TestStreamErrorKinds(t *testing.T) {
	srv, conf := startDemo(t)
	cases := []struct {
		name string
		spec Spec
		want string
	}{
		{"reset", streamSpec(srv.Addr(), ConnPooled, "RESET"), "stream_reset"},
		{"unknown", streamSpec(srv.Addr(), ConnPooled, "NOPE"), "stream_reset"},
		{"app close", streamSpec(srv.Addr(), ConnPooled, "CLOSE 7"), "app_error_7"},
		{"unexpected", func() Spec {
			s := streamSpec(srv.Addr(), ConnFresh, "ECHO a")
			s.Expect = "b"
			return s
		}(), "unexpected_reply"},
		{"tls", func() Spec {
			s := streamSpec(srv.Addr(), ConnFresh, "ECHO a")
			s.InsecureSkipVerify = false
			return s
		}(), "tls"},
		{"alpn", func() Spec {
			s := streamSpec(srv.Addr(), ConnFresh, "ECHO a")
			s.ALPN = "other"
			return s
		}(), "tls"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := prepared(t, c.spec)
			if got := r.newWorker(0, newTestRec()).Do(context.Background()).Err; got != c.want {
				t.Errorf("error kind %q, want %q", got, c.want)
			}
		})
	}
	t.Run("ca_file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "ca.pem")
		if err := os.WriteFile(path, demo.CertPEM(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		s := streamSpec(srv.Addr(), ConnFresh, "ECHO a")
		s.InsecureSkipVerify, s.CAFile, s.ServerName = false, path, "localhost"
		if got := prepared(t, s).newWorker(0, newTestRec()).Do(context.Background()).Err; got != "" {
			t.Errorf("with ca_file: error kind %q", got)
		}
	})
}

func TestReconnectAfterAppClose(t *testing.T) {
	srv, _ := startDemo(t)
	r := prepared(t, streamSpec(srv.Addr(), ConnPooled, "CLOSE 9"))
	rec := newTestRec()
	w := r.newWorker(0, rec)
	for range 3 {
		w.Do(context.Background())
	}
	if got := rec.count("reconnects"); got != 2 {
		t.Errorf("reconnects %d, want 2", got)
	}
	if got := len(rec.extra("handshake")); got != 2 {
		t.Errorf("handshakes recorded %d, want 2 (the reconnects)", got)
	}
}

func TestUnreachableFailsFast(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr()
	_ = pc.Close()
	s := streamSpec(addr, ConnFresh, "ECHO a")
	s.HandshakeTimeout = durationOf(150 * time.Millisecond)
	r := prepared(t, s)
	start := time.Now()
	got := r.newWorker(0, newTestRec()).Do(context.Background()).Err
	t.Logf("unreachable port: %s after %v", got, time.Since(start))
	if got != "handshake_timeout" && got != "refused" {
		t.Errorf("error kind %q, want handshake_timeout or refused", got)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v with a 150ms handshake timeout", d)
	}
	// A pooled runner reports the failure from Prepare.
	s.Connection = ConnPooled
	pr, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if err := pr.Prepare(context.Background(), nil); err == nil {
		t.Error("Prepare of a pooled runner to nowhere succeeded")
	}
}

func TestOperationTimeout(t *testing.T) {
	srv, _ := startDemo(t)
	r := prepared(t, streamSpec(srv.Addr(), ConnPooled, "ECHO a"))
	r.timeout = time.Nanosecond
	if got := r.newWorker(0, newTestRec()).Do(context.Background()).Err; got != "timeout" {
		t.Errorf("error kind %q, want timeout", got)
	}
}

func TestHTTP3(t *testing.T) {
	conf, err := demo.SelfSignedTLS()
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/ping", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("pong " + r.Method))
	})
	mux.HandleFunc("/fail", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	})
	srv, err := demo.ServeHTTP3(context.Background(), "127.0.0.1:0", conf, mux)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	}()
	base := "https://" + srv.Addr().String()
	for _, policy := range []string{ConnPooled, ConnPerWorker, ConnFresh} {
		t.Run(policy, func(t *testing.T) {
			before := hits.Load()
			s := Spec{URL: base + "/ping", Method: "POST", Body: "x", Expect: "pong POST",
				Connection: policy, InsecureSkipVerify: true}
			rec := newTestRec()
			res := runOps(t, prepared(t, s), rec, 3, 10)
			if res.kinds[""] != 30 || hits.Load()-before != 30 {
				t.Fatalf("outcomes %v, handler hits %d, want 30", res.kinds, hits.Load()-before)
			}
			if n := len(rec.extra("handshake")); (policy == ConnFresh) != (n > 0) {
				t.Errorf("%s recorded %d handshakes", policy, n)
			}
		})
	}
	r := prepared(t, Spec{URL: base + "/fail", InsecureSkipVerify: true})
	if got := r.newWorker(0, newTestRec()).Do(context.Background()).Err; got != "status_5xx" {
		t.Errorf("error kind %q, want status_5xx", got)
	}
}

func TestSpecProblems(t *testing.T) {
	cases := map[string]Spec{
		"addr":       {Request: "x"},
		"request":    {Addr: "127.0.0.1:1"},
		"url":        {Mode: ModeHTTP3, URL: "http://x/"},
		"mode":       {Mode: "tcp"},
		"connection": {Addr: "127.0.0.1:1", Request: "x", Connection: "shared"},
	}
	for want, s := range cases {
		p := s.problems()
		if len(p) == 0 || !strings.Contains(strings.Join(p, ";"), want) {
			t.Errorf("%s: problems %q", want, p)
		}
	}
	if p := (&Spec{URL: "https://h:1/"}).problems(); len(p) != 0 {
		t.Errorf("http3 spec: %q", p)
	}
}

// silentServer accepts connections and then stops answering without a
// CONNECTION_CLOSE, as a crashed or partitioned server would.
func silentServer(t *testing.T) (addr net.Addr, accepted <-chan struct{}, vanish func()) {
	t.Helper()
	conf, err := demo.SelfSignedTLS()
	if err != nil {
		t.Fatal(err)
	}
	conf.NextProtos = []string{demo.QUICALPN}
	pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	tr := &quic.Transport{Conn: pc}
	ln, err := tr.Listen(conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	done, acc := make(chan struct{}), make(chan struct{}, 1)
	go func() {
		defer close(done)
		for {
			if _, err := ln.Accept(context.Background()); err != nil {
				return
			}
			select {
			case acc <- struct{}{}:
			default:
			}
		}
	}()
	var once sync.Once
	vanish = func() {
		once.Do(func() {
			_ = tr.Close() // drops every connection without telling the peers
			<-done
		})
	}
	// The socket stays open, unread, so that no ICMP "port unreachable"
	// turns the silence into a refusal.
	t.Cleanup(func() { vanish(); _ = pc.Close() })
	return pc.LocalAddr(), acc, vanish
}

func TestIdleTimeout(t *testing.T) {
	addr, accepted, vanish := silentServer(t)
	s := streamSpec(addr, ConnPooled, "ECHO a")
	s.IdleTimeout = durationOf(300 * time.Millisecond)
	r := prepared(t, s) // the pooled connection is up
	<-accepted          // and past the server's handshake: closing now refuses nothing
	vanish()
	if got := r.newWorker(0, newTestRec()).Do(context.Background()).Err; got != "idle_timeout" {
		t.Errorf("error kind %q, want idle_timeout", got)
	}
}
