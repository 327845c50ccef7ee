package sse

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestSourcesSpreadSubscribers holds 6 subscribers from sources
// 127.0.0.2/31 and 127.0.0.5: the server sees two streams from each of
// the three addresses, dealt round them.
func TestSourcesSpreadSubscribers(t *testing.T) {
	var mu sync.Mutex
	from := map[string]int{}
	srv := holdingServer(t, func(r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		mu.Lock()
		from[host]++
		mu.Unlock()
	})
	h := newTestHost()
	r := newRunner(t, Spec{URL: srv.URL, Sources: []string{"127.0.0.2/31", "127.0.0.5"}})
	stop := startDrive(t, r, h, 6)
	waitFor(t, "6 events", func() bool { return h.events() == 6 })
	stop()
	mu.Lock()
	defer mu.Unlock()
	if from["127.0.0.2"] != 2 || from["127.0.0.3"] != 2 || from["127.0.0.5"] != 2 || len(from) != 3 {
		t.Errorf("streams by source address %v, want 2 from each of 127.0.0.2, .3 and .5", from)
	}
}

func TestSourcesRefused(t *testing.T) {
	for want, s := range map[string]Spec{
		`sources[0] "example.com": want an IP address or a CIDR block`: {URL: "http://x/", Sources: []string{"example.com"}},
		`sources[0] "127.0.0.0/8": more than 1024 addresses`:           {URL: "http://x/", Sources: []string{"127.0.0.0/8"}},
	} {
		if p := strings.Join(s.problems(), ";"); !strings.Contains(p, want) {
			t.Errorf("%s: problems %q", want, p)
		}
	}
	// An address of no interface here (TEST-NET-1: bound, never sent to).
	_, err := New(Spec{URL: "http://127.0.0.1:1/", Sources: []string{"192.0.2.7"}})
	if err == nil || !strings.Contains(err.Error(), "sources: 192.0.2.7 is not an address of this machine") {
		t.Errorf("New with a foreign source: %v", err)
	}
}

// TestOpenersAreReleasedOnceOpen: with room for one stream being opened
// at a time, five subscribers all hold their streams: a held stream gives
// its opener back (else the first would keep the others out for good).
func TestOpenersAreReleasedOnceOpen(t *testing.T) {
	saved := openers
	openers = make(chan struct{}, 1)
	t.Cleanup(func() { openers = saved }) // the drive's cleanup, later, runs first
	srv := holdingServer(t, func(*http.Request) {})
	h := newTestHost()
	stop := startDrive(t, newRunner(t, Spec{URL: srv.URL}), h, 5)
	waitFor(t, "5 streams held", func() bool { return h.events() == 5 && h.units.Load() == 5 })
	stop()
}

// holdingServer sends each stream one event and holds it open until the
// client goes, calling seen with each request first. It is closed after
// the drive's stop (Cleanup order): Close waits for the handlers.
func holdingServer(t *testing.T, seen func(*http.Request)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen(r)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: {\"n\":1}\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv
}
