package demo

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// readEvents returns the id lines of the stream until it ends.
func readEvents(t *testing.T, url, lastID string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	var ids []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			ids = append(ids, id)
		} else if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && !strings.Contains(data, `"ts":`) {
			t.Errorf("data %q has no ts", data)
		}
	}
	return ids
}

func TestSSEHandlerLimitAndLastEventID(t *testing.T) {
	srv := httptest.NewServer(SSEHandler(0))
	defer srv.Close()
	if got := strings.Join(readEvents(t, srv.URL+"?rate=1000&limit=3", ""), ","); got != "1,2,3" {
		t.Errorf("ids %s, want 1,2,3", got)
	}
	if got := strings.Join(readEvents(t, srv.URL+"?rate=1000&limit=2", "41"), ","); got != "42,43" {
		t.Errorf("ids after Last-Event-ID 41: %s, want 42,43", got)
	}
	resp, err := http.Get(srv.URL + "?rate=0")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("rate=0: status %d", resp.StatusCode)
	}
}

func TestDocumentAndCommands(t *testing.T) {
	a, b := Document("/a.md"), Document("/b.md")
	if string(a) != string(makeDocument("/a.md")) || string(a) == string(b) {
		t.Error("documents are not deterministic per path")
	}
	if len(a) < 2048 || len(a) > 8192 || !strings.HasPrefix(string(a), "# /a.md\n") {
		t.Errorf("document of %d bytes: %.40q", len(a), a)
	}
	if reply, reset, closeCode := answerQUIC([]byte("ECHO hi there")); string(reply) != "hi there" || reset != 0 || closeCode != -1 {
		t.Errorf("ECHO: %q %d %d", reply, reset, closeCode)
	}
	if _, reset, _ := answerQUIC([]byte("ECHO")); reset != 0 {
		t.Error("bare ECHO reset the stream")
	}
	if _, _, closeCode := answerQUIC([]byte("CLOSE 7")); closeCode != 7 {
		t.Errorf("CLOSE 7: close code %d", closeCode)
	}
	if _, reset, _ := answerQUIC([]byte("what")); reset != QUICCodeUnknown {
		t.Errorf("unknown command: reset %d", reset)
	}
}

// TestSSEMetricsCountEvents: /metrics counts the events /events wrote,
// every stream's, and the streams held open: the server's own count a
// client's is checked against.
func TestSSEMetricsCountEvents(t *testing.T) {
	srv := httptest.NewServer(NewHandlerWith(Options{}))
	defer srv.Close()
	readEvents(t, srv.URL+"/events?rate=1000&limit=3", "")
	readEvents(t, srv.URL+"/events?rate=1000&limit=4", "")
	if v := metricValue(t, srv.URL+"/metrics", "demo_sse_events_sent_total"); v != 7 {
		t.Errorf("demo_sse_events_sent_total %v, want 7", v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/events?rate=1", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if v := metricValue(t, srv.URL+"/metrics", "demo_sse_streams_open"); v != 1 {
		t.Errorf("demo_sse_streams_open %v while one is held, want 1", v)
	}
}
