package sse

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/demo"
)

func withClamps(r *Runner, lo, hi time.Duration) *Runner {
	r.backoffMin, r.backoffMax = lo, hi
	return r
}

func TestDropsReconnectsAndCountsExactly(t *testing.T) {
	t.Run("lean", func(t *testing.T) { testDrops(t, true) })
	t.Run("net/http", func(t *testing.T) { testDrops(t, false) })
}

func testDrops(t *testing.T, lean bool) {
	const subs, perConn, drops = 3, 4, 9
	srv := newDropServer(t, perConn, drops)
	r := withClamps(newRunner(t, Spec{URL: srv.URL, Reconnect: true}), 5*time.Millisecond, 40*time.Millisecond)
	if !r.client.lean {
		t.Fatal("no lean client for a loopback URL")
	}
	r.client.lean = lean
	h := newTestHost()
	stop := startDrive(t, r, h, subs)
	// Held again is not yet counted as reconnected (the counter follows
	// the response headers): wait for the counts too, so a busy machine
	// cannot stop the drive between the two.
	waitFor(t, "all events, every subscriber held and every reconnect counted", func() bool {
		_, extras, counts := h.snapshot()
		return h.events() == perConn*drops && h.units.Load() == subs &&
			counts["reconnects"] == drops && len(extras["backoff"]) == drops
	})
	stop()

	if got := h.events(); got != perConn*drops {
		t.Errorf("events %d, want %d", got, perConn*drops)
	}
	kinds, extras, counts := h.snapshot()
	if len(kinds) != 0 {
		t.Errorf("error kinds %v, want none", kinds)
	}
	if counts["disconnects"] != drops || counts["reconnects"] != drops {
		t.Errorf("disconnects %d reconnects %d, want %d each", counts["disconnects"], counts["reconnects"], drops)
	}
	// The drop server ends every other stream by closing its connection
	// mid-response (cut) and the rest by finishing the response (clean).
	if counts[CounterCut] != drops/2 || counts[CounterClosedClean] != drops-drops/2 {
		t.Errorf("streams cut %d, closed clean %d; want %d and %d", counts[CounterCut], counts[CounterClosedClean], drops/2, drops-drops/2)
	}
	if len(extras["backoff"]) != drops {
		t.Errorf("%d backoffs recorded, want %d", len(extras["backoff"]), drops)
	}
	for _, b := range extras["backoff"] {
		if b < 0 || b > 40*time.Millisecond {
			t.Errorf("backoff %v outside [0, 40ms]", b)
		}
	}
	if len(extras["first_event"]) != drops {
		t.Errorf("%d first_event extras, want %d (held streams get none)", len(extras["first_event"]), drops)
	}
	for _, l := range h.rec.lats {
		if l < 0 || l > 5*time.Second {
			t.Errorf("latency %v from the ts field is implausible", l)
		}
	}
	checkLastEventIDs(t, srv, subs, drops)
	if h.inFlight.Load() != 0 || h.units.Load() != 0 || h.maxUnits.Load() != subs {
		t.Errorf("after the run: in flight %d, units %d, max units %d", h.inFlight.Load(), h.units.Load(), h.maxUnits.Load())
	}
}

// checkLastEventIDs: every reconnect sends the last id of an ended stream.
func checkLastEventIDs(t *testing.T, srv *dropServer, subs, drops int) {
	t.Helper()
	ids, ended, _ := srv.requests()
	if len(ids) != subs+drops {
		t.Fatalf("%d requests, want %d", len(ids), subs+drops)
	}
	seen := map[string]bool{}
	empty := 0
	for _, id := range ids {
		switch {
		case id == "":
			empty++
		case !ended[id] || seen[id]:
			t.Errorf("Last-Event-ID %q is not the last id of a distinct ended stream", id)
		}
		seen[id] = true
	}
	if empty != subs {
		t.Errorf("%d requests without Last-Event-ID, want %d (the first of each subscriber)", empty, subs)
	}
}

func TestTLS(t *testing.T) {
	srv := httptest.NewTLSServer(demo.SSEHandler(500))
	defer srv.Close()
	h := newTestHost()
	stop := startDrive(t, newRunner(t, Spec{URL: srv.URL, InsecureSkipVerify: true}), h, 2)
	waitFor(t, "events over TLS", func() bool { return h.events() >= 10 })
	stop()
	h = newTestHost()
	stop = startDrive(t, newRunner(t, Spec{URL: srv.URL}), h, 1)
	waitFor(t, "a verification failure", func() bool { k, _, _ := h.snapshot(); return k["tls"] >= 1 })
	stop()
}

func TestNoReconnect(t *testing.T) {
	srv := newDropServer(t, 2, 100)
	h := newTestHost()
	r := newRunner(t, Spec{URL: srv.URL})
	defer r.Close()
	// Once both streams have ended, drive returns by itself.
	if err := r.drive(context.Background(), h, 2); err != nil {
		t.Fatal(err)
	}
	_, extras, counts := h.snapshot()
	if h.events() != 4 || counts["disconnects"] != 2 || counts["reconnects"] != 0 || len(extras["backoff"]) != 0 {
		t.Errorf("events %d disconnects %d reconnects %d backoffs %d, want 4, 2, 0, 0",
			h.events(), counts["disconnects"], counts["reconnects"], len(extras["backoff"]))
	}
}

func TestOverlongLineEndsStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: " + strings.Repeat("x", 2<<20)))
		<-r.Context().Done() // never ends the line nor the stream
	}))
	defer srv.Close()
	for _, lean := range []bool{true, false} {
		h := newTestHost()
		r := newRunner(t, Spec{URL: srv.URL})
		r.client.lean = lean
		stop := startDrive(t, r, h, 1)
		waitFor(t, "the stream to be dropped", func() bool { _, _, c := h.snapshot(); return c["disconnects"] == 1 })
		stop()
	}
}

func TestConnectErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/events"
	_ = ln.Close()
	h := newTestHost()
	r := withClamps(newRunner(t, Spec{URL: url, Reconnect: true}), time.Millisecond, 4*time.Millisecond)
	stop := startDrive(t, r, h, 2)
	waitFor(t, "a few refusals", func() bool {
		k, _, _ := h.snapshot()
		return k["refused"] >= 6
	})
	stop()
	kinds, extras, counts := h.snapshot()
	if len(kinds) != 1 {
		t.Errorf("error kinds %v, want only refused", kinds)
	}
	// Every refusal backs off; none is a reconnect: no stream was opened again.
	if b, rc := int64(len(extras["backoff"])), counts["reconnects"]; b < 6 || rc != 0 {
		t.Errorf("%d backoffs, %d reconnects; want a backoff per refusal and no reconnect", b, rc)
	}
	if counts["disconnects"] != 0 || h.maxUnits.Load() != 0 {
		t.Errorf("refused connects counted as disconnects (%d) or units (%d)", counts["disconnects"], h.maxUnits.Load())
	}

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusServiceUnavailable)
	}))
	defer bad.Close()
	h = newTestHost()
	stop = startDrive(t, newRunner(t, Spec{URL: bad.URL}), h, 1)
	waitFor(t, "a 503", func() bool { k, _, _ := h.snapshot(); return k["status_5xx"] == 1 })
	stop()
}

func TestRampSpacesBatches(t *testing.T) {
	srv := newDropServer(t, 0, 0) // every stream held
	h := newTestHost()
	stop := startDrive(t, newRunner(t, Spec{URL: srv.URL, Ramp: "2/60ms"}), h, 6)
	waitFor(t, "six subscribers", func() bool { return h.units.Load() == 6 })
	stop()
	_, _, started := srv.requests()
	if len(started) != 6 {
		t.Fatalf("%d connections, want 6", len(started))
	}
	first, last := started[0], started[0]
	for _, s := range started {
		if s.Before(first) {
			first = s
		}
		if s.After(last) {
			last = s
		}
	}
	if d := last.Sub(first); d < 110*time.Millisecond {
		t.Errorf("third batch %v after the first, want >= 120ms (2 ramp steps)", d)
	}
}

func TestPauseStopsCounting(t *testing.T) {
	srv := httptest.NewServer(demo.SSEHandler(200))
	defer srv.Close()
	h := newTestHost()
	stop := startDrive(t, newRunner(t, Spec{URL: srv.URL}), h, 2)
	waitFor(t, "events", func() bool { return h.events() >= 10 })
	h.g.Pause()
	time.Sleep(30 * time.Millisecond)
	held := h.events()
	time.Sleep(100 * time.Millisecond)
	if got := h.events(); got != held {
		t.Errorf("%d events recorded while paused", got-held)
	}
	h.g.Resume()
	waitFor(t, "events after resume", func() bool { return h.events() >= held+10 })
	stop()
	if _, extras, _ := h.snapshot(); len(extras["first_event"]) != 2 {
		t.Errorf("first_event recorded %d times, want 2", len(extras["first_event"]))
	}
}

func TestSentAt(t *testing.T) {
	now := time.UnixMilli(1_764_513_600_500)
	cases := []struct {
		data, id string
		want     time.Duration
		ok       bool
	}{
		{`{"id":1,"ts":1764513600400}`, "1", 100 * time.Millisecond, true},
		{`{"ts" : 1764513600499.5, "x": 1}`, "", 500 * time.Microsecond, true},
		{`{"ts":1.7645136004e12}`, "", 100 * time.Millisecond, true},
		{`hello`, "1764513600300", 200 * time.Millisecond, true},
		{`{"ts":"soon"}`, "42", 0, false},
		{`{"tsx":1764513600400}`, "", 0, false},
		{`{"ts":1764513600600}`, "", 0, true}, // clock skew clamps to 0
	}
	for _, c := range cases {
		got, ok := sentAt([]byte(c.data), []byte(c.id), now)
		if ok != c.ok || (ok && (got-c.want).Abs() > time.Microsecond) {
			t.Errorf("sentAt(%s, %q) = %v, %v; want %v, %v", c.data, c.id, got, ok, c.want, c.ok)
		}
	}
}

func TestSpecProblems(t *testing.T) {
	for want, s := range map[string]Spec{
		"url":                            {URL: "ftp://x/"},
		"ramp":                           {URL: "http://x/", Ramp: "10"},
		"want 0 to 100000, got -1":       {URL: "http://x/", Subscribers: -1},
		"want 0 to 100000, got 1000000":  {URL: "http://x/", Subscribers: 1_000_000},
		"its value holds a control char": {URL: "http://x/", Headers: map[string]string{"X": "a\r\nGET /ADMIN"}},
	} {
		if p := strings.Join(s.problems(), ";"); !strings.Contains(p, want) {
			t.Errorf("%s: problems %q", want, p)
		}
	}
	if rp, err := parseRamp("100/5s"); err != nil || rp.n != 100 || rp.every != 5*time.Second {
		t.Errorf("parseRamp: %+v, %v", rp, err)
	}
}
