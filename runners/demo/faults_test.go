package demo

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestParseFaults(t *testing.T) {
	f, err := ParseFaults(" leak=16, slow=250ms,errors,,stream-cap=3,gate-open ")
	if err != nil {
		t.Fatal(err)
	}
	if f.LeakKB != 16 || f.Slow != 250*time.Millisecond || f.ErrorsEvery != errorsEvery || f.StreamCap != 3 || !f.GateOpen || f.MailTwice {
		t.Errorf("parsed %+v", f)
	}
	if f, err := ParseFaults(""); err != nil || f.ErrorsEvery != 0 || f.Slow != 0 {
		t.Errorf("empty list: %+v, %v; want no fault", f, err)
	}
	if f, _ := ParseFaults("slow,leak,slow-start"); f.Slow != 100*time.Millisecond || f.LeakKB != 4 || f.SlowStart != 3*time.Second {
		t.Errorf("defaults: %+v", f)
	}
	for _, bad := range []string{"nope", "errors=2", "leak=0", "slow=-1s", "slow=2m", "stream-cap=x"} {
		if _, err := ParseFaults(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseFaults(%q): %v, want an error naming it", bad, err)
		}
	}
}

// TestFaultNoMetrics: /metrics is a 503 with no-metrics, the exposition
// without it.
func TestFaultNoMetrics(t *testing.T) {
	for list, want := range map[string]int{"no-metrics": http.StatusServiceUnavailable, "": http.StatusOK} {
		srv, _ := faultyServer(t, list)
		if code, body := get(t, http.MethodGet, srv.URL+"/metrics", ""); code != want || want == 200 && !strings.Contains(body, "process_resident_memory_bytes") {
			t.Errorf("faults %q: GET /metrics %d, want %d (and the process's memory when 200)", list, code, want)
		}
	}
}

func faultyServer(t *testing.T, list string) (*httptest.Server, *Handler) {
	t.Helper()
	f, err := ParseFaults(list)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandlerWith(Options{Faults: f})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, h
}

// TestFaultErrorsEveryFiftieth: the 1st, 51st and 101st of 120 app replies
// are 500s; readiness, stats and the mailbox's reads are never touched.
func TestFaultErrorsEveryFiftieth(t *testing.T) {
	srv, _ := faultyServer(t, "errors")
	var failed []int
	for i := 1; i <= 120; i++ {
		if code, _ := get(t, http.MethodGet, srv.URL+"/ping", ""); code == http.StatusInternalServerError {
			failed = append(failed, i)
		}
		for _, path := range []string{"/healthz", "/ingest/stats", "/ingest/count", "/mail"} {
			if code, _ := get(t, http.MethodGet, srv.URL+path, ""); code != http.StatusOK {
				t.Fatalf("GET %s: %d, want 200 (no app route)", path, code)
			}
		}
	}
	if len(failed) != 3 || failed[0] != 1 || failed[1] != 51 || failed[2] != 101 {
		t.Errorf("500s at replies %v, want [1 51 101]", failed)
	}
}

func TestFaultSlowAndFastWork(t *testing.T) {
	srv, _ := faultyServer(t, "slow=120ms,fast-work")
	start := time.Now()
	if code, body := get(t, http.MethodGet, srv.URL+"/work?ms=2000", ""); code != http.StatusOK || body != "worked 0 ms\n" {
		t.Errorf("/work?ms=2000 with fast-work: %d %q, want worked 0 ms", code, body)
	}
	if took := time.Since(start); took < 120*time.Millisecond || took > 1900*time.Millisecond {
		t.Errorf("took %s, want the 120 ms of slow and not the 2 s of ms", took)
	}
}

func TestFaultGateOpenAndMailTwice(t *testing.T) {
	srv, _ := faultyServer(t, "gate-open,mail-twice")
	for range 5 {
		if code, _ := get(t, http.MethodGet, srv.URL+"/gate?key=x&burst=2&rate=0", ""); code != http.StatusOK {
			t.Fatalf("gate-open: %d, want 200 past the burst", code)
		}
	}
	for range 3 {
		get(t, http.MethodPost, srv.URL+"/mail", "m")
	}
	if _, body := get(t, http.MethodGet, srv.URL+"/mail", ""); body != "{\"total\":6}\n" {
		t.Errorf("mailbox %q after 3 sends, want 6", body)
	}
}

// TestIngestQueue: a batch is pending until ingestDelay has passed, then
// delivered; stuck, it stays and ages.
func TestIngestQueue(t *testing.T) {
	now := time.Now()
	for _, stuck := range []bool{false, true} {
		q := ingestQueue{stuck: stuck}
		q.add("", 40, now)
		q.add("", 2, now.Add(10*time.Millisecond))
		if p, d, age := q.Stats(now.Add(20 * time.Millisecond)); p != 42 || d != 0 || age != 20*time.Millisecond {
			t.Errorf("stuck %v at 20 ms: pending %d delivered %d oldest %s, want 42, 0, 20ms", stuck, p, d, age)
		}
		p, d, age := q.Stats(now.Add(time.Second))
		switch {
		case !stuck && (p != 0 || d != 42 || age != 0):
			t.Errorf("at 1 s: pending %d delivered %d oldest %s, want all 42 delivered", p, d, age)
		case stuck && (p != 42 || d != 0 || age != time.Second):
			t.Errorf("stuck at 1 s: pending %d delivered %d oldest %s, want 42 pending for 1s", p, d, age)
		}
	}
	srv, _ := faultyServer(t, "stuck-queue")
	get(t, http.MethodPost, srv.URL+"/ingest", "a\nb\nc\n")
	time.Sleep(2 * ingestDelay)
	if _, body := get(t, http.MethodGet, srv.URL+"/ingest/stats", ""); !strings.HasPrefix(body, `{"accepted":3,"delivered":0,"pending":3,"oldest_age_ms":`) {
		t.Errorf("stats %q, want 3 accepted and pending", body)
	}
}

// TestFaultStreamCap: past the cap, /events answers 503 until a stream ends.
func TestFaultStreamCap(t *testing.T) {
	srv, _ := faultyServer(t, "stream-cap=2")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 2 {
		resp := openEvents(t, ctx, srv.URL)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d, want 200", i, resp.StatusCode)
		}
	}
	if code, _ := get(t, http.MethodGet, srv.URL+"/events?limit=1", ""); code != http.StatusServiceUnavailable {
		t.Errorf("third stream: %d, want 503", code)
	}
}

func openEvents(t *testing.T, ctx context.Context, base string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/events?rate=100", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestFaultUncleanClose: at shutdown a stream ends with its last chunk
// (io.EOF) normally, and is cut (io.ErrUnexpectedEOF) with unclean-close.
func TestFaultUncleanClose(t *testing.T) {
	for _, list := range []string{"", "unclean-close"} {
		srv, h := faultyServer(t, list)
		resp := openEvents(t, context.Background(), srv.URL)
		br := bufio.NewReader(resp.Body)
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		h.EndStreams()
		_, err := io.Copy(io.Discard, br)
		if clean := err == nil; clean != (list == "") {
			t.Errorf("faults %q: stream ended with %v", list, err)
		}
		if list != "" && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("unclean-close: %v, want an unexpected EOF", err)
		}
	}
}
