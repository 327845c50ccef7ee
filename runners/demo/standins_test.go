package demo

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func get(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestIngestCountsEventLines(t *testing.T) {
	srv := httptest.NewServer(NewHandler())
	defer srv.Close()
	if code, body := get(t, http.MethodPost, srv.URL+"/ingest", "{\"a\":1}\n\n{\"a\":2}\n{\"a\":3}"); code != http.StatusAccepted || !strings.Contains(body, `"accepted":3`) {
		t.Errorf("POST /ingest: %d %q, want 202 accepting 3", code, body)
	}
	get(t, http.MethodPost, srv.URL+"/ingest", "x\n")
	time.Sleep(2 * ingestDelay) // delivered: visible to the count
	if _, body := get(t, http.MethodGet, srv.URL+"/ingest/count", ""); body != "{\"count\":4}\n" {
		t.Errorf("count %q, want 4", body)
	}
	if code, _ := get(t, http.MethodGet, srv.URL+"/ingest", ""); code != http.StatusMethodNotAllowed {
		t.Errorf("GET /ingest: %d, want 405", code)
	}
}

// TestGateAllowsItsBurstExactly: a bucket of 50 without refill allows 50 of
// 120 concurrent takes and denies 70; another key has a bucket of its own.
func TestGateAllowsItsBurstExactly(t *testing.T) {
	srv := httptest.NewServer(NewHandler())
	defer srv.Close()
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for range 120 {
		wg.Go(func() {
			code, _ := get(t, http.MethodGet, srv.URL+"/gate?key=a&burst=50&rate=0", "")
			mu.Lock()
			codes[code]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if codes[200] != 50 || codes[429] != 70 {
		t.Errorf("codes %v, want 50 allowed and 70 denied", codes)
	}
	if code, _ := get(t, http.MethodGet, srv.URL+"/gate?key=b&burst=50&rate=0", ""); code != 200 {
		t.Errorf("another key: %d, want 200", code)
	}
	if code, _ := get(t, http.MethodGet, srv.URL+"/gate?burst=0", ""); code != http.StatusBadRequest {
		t.Errorf("burst=0: %d, want 400", code)
	}
}

// TestPublishPacesCommits: writes to a world go one at a time, committed
// at least the interval apart; a write given up by its client leaves the
// pacing as it was; another world has a pacing of its own.
func TestPublishPacesCommits(t *testing.T) {
	srv := httptest.NewServer(NewHandler())
	defer srv.Close()
	url := srv.URL + "/publish?world=a&ms=5&interval_ms=200"
	start := time.Now()
	for range 3 {
		if code, _ := get(t, http.MethodPut, url, ""); code != 200 {
			t.Fatalf("publish: %d", code)
		}
	}
	// The first commits after 5 ms, the next two 200 ms after the one before.
	if took := time.Since(start); took < 400*time.Millisecond {
		t.Errorf("3 writes back to back took %s, want >= 400ms (2 intervals)", took)
	}
	start = time.Now()
	get(t, http.MethodPut, srv.URL+"/publish?world=b&ms=5&interval_ms=200", "")
	if took := time.Since(start); took > 150*time.Millisecond {
		t.Errorf("the first write to another world took %s, want about ms=5", took)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, url, nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("a write inside the interval answered in 20ms: %d", resp.StatusCode)
	}
	time.Sleep(250 * time.Millisecond)
	start = time.Now()
	get(t, http.MethodPut, url, "")
	if took := time.Since(start); took > 150*time.Millisecond {
		t.Errorf("a write spaced past the interval took %s, want about ms=5", took)
	}
}

func TestQUICStandInVerbs(t *testing.T) {
	for _, req := range []string{"LOOKUP latency", "LIST /worlds/default"} {
		reply, reset, closeCode := answerQUIC([]byte(req))
		if reset != 0 || closeCode != -1 || !strings.HasPrefix(string(reply), "# "+req) || strings.Count(string(reply), "\n- ") != 8 {
			t.Errorf("%s: reset %d close %d reply %q", req, reset, closeCode, reply)
		}
	}
}

func TestMailboxCountsSendsUntilEmptied(t *testing.T) {
	srv := httptest.NewServer(NewHandler())
	defer srv.Close()
	for range 3 {
		if code, _ := get(t, http.MethodPost, srv.URL+"/mail", `{"to":"a@b.test"}`); code != http.StatusAccepted {
			t.Fatalf("POST /mail: %d, want 202", code)
		}
	}
	if _, body := get(t, http.MethodGet, srv.URL+"/mail", ""); body != "{\"total\":3}\n" {
		t.Errorf("GET /mail: %q, want total 3", body)
	}
	get(t, http.MethodDelete, srv.URL+"/mail", "")
	if _, body := get(t, http.MethodGet, srv.URL+"/mail", ""); body != "{\"total\":0}\n" {
		t.Errorf("GET /mail after DELETE: %q, want total 0", body)
	}
}

// TestIngestStatsDeliversAfterADelay: accepted events are pending in the
// stand-in's delivery queue, then delivered; /ingest/stats's accepted is
// what /ingest accepted.
func TestIngestStatsDeliversAfterADelay(t *testing.T) {
	srv := httptest.NewServer(NewHandler())
	defer srv.Close()
	posted := time.Now()
	get(t, http.MethodPost, srv.URL+"/ingest", "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n")
	// Pending while the delay lasts: a read later than that (at load 23,
	// the stats came after the batch was delivered) proves nothing here.
	_, body := get(t, http.MethodGet, srv.URL+"/ingest/stats", "")
	if time.Since(posted) < ingestDelay && !strings.HasPrefix(body, "{\"accepted\":3,\"delivered\":0,\"pending\":3,") {
		t.Errorf("right after the post: %q, want 3 pending", body)
	}
	time.Sleep(ingestDelay + 100*time.Millisecond)
	fourth := time.Now()
	get(t, http.MethodPost, srv.URL+"/ingest", "{\"a\":4}\n")
	// The fourth is pending only while its own delay lasts (beside two
	// burners the stats once came after it was delivered too).
	_, body = get(t, http.MethodGet, srv.URL+"/ingest/stats", "")
	pending := strings.HasPrefix(body, "{\"accepted\":4,\"delivered\":3,\"pending\":1,")
	late := time.Since(fourth) >= ingestDelay && strings.HasPrefix(body, "{\"accepted\":4,\"delivered\":4,\"pending\":0,")
	if !pending && !late {
		t.Errorf("after the delay and one more: %q, want 3 delivered, 1 pending (or, read past the fourth's delay, 4 delivered)", body)
	}
	time.Sleep(2 * ingestDelay) // delivered: visible to the count
	if _, body := get(t, http.MethodGet, srv.URL+"/ingest/count", ""); body != "{\"count\":4}\n" {
		t.Errorf("count %q, want 4", body)
	}
}

// TestDeliveryQueueIsBounded: past maxQueued, batches join the newest;
// nothing is lost and all are delivered.
func TestDeliveryQueueIsBounded(t *testing.T) {
	var q ingestQueue
	now := time.Now()
	for i := range maxQueued + 10 {
		q.add("", 2, now.Add(time.Duration(i))) // 65 µs in all: none due yet
	}
	if len(q.batches) != maxQueued || q.pending != 2*(maxQueued+10) {
		t.Fatalf("%d batches, %d pending", len(q.batches), q.pending)
	}
	pending, delivered, _ := q.Stats(now.Add(time.Second + ingestDelay))
	if delivered != 2*(maxQueued+10) || pending != 0 || len(q.batches) != 0 {
		t.Errorf("delivered %d pending %d batches %d", delivered, pending, len(q.batches))
	}
}
