package demo

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// eventBatch is n event lines with the UUIDs from..from+n-1, each padded
// to about 600 bytes as seed 003's are.
func eventBatch(from, n int) string {
	var b strings.Builder
	pad := strings.Repeat("p", 512)
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "{\"uuid\":\"5eed0030-0000-4000-8000-%012x\",\"visitor\":\"v1\",\"props\":{\"pad\":%q}}\n", i, pad)
	}
	return b.String()
}

// getJSON reads a JSON reply of the GET or POST into v, wanting code.
func getJSON(t *testing.T, method, url, body string, code int, v any) {
	t.Helper()
	got, text := get(t, method, url, body)
	if got != code {
		t.Fatalf("%s %s: %d %q, want %d", method, url, got, text, code)
	}
	if err := json.Unmarshal([]byte(text), v); err != nil {
		t.Fatalf("%s %s: %q: %v", method, url, text, err)
	}
}

// newIngestServer serves the demo with a store in a test directory.
func newIngestServer(t *testing.T, f *Faults) *httptest.Server {
	t.Helper()
	store, err := OpenStore(t.TempDir(), f.StoreGrowth)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	srv := httptest.NewServer(NewHandlerWith(Options{Faults: f, Store: store}))
	t.Cleanup(srv.Close)
	return srv
}

type ingestReply struct{ Accepted, Duplicates int64 }

// TestIngestDeduplicatesByUUID: batches sent concurrently, then the early
// batch again: each UUID is accepted exactly once, the repeats are
// duplicates, and the counts (total and per UUID) say so; with no-dedup
// every copy is accepted and counted.
func TestIngestDeduplicatesByUUID(t *testing.T) {
	for _, tc := range []struct {
		fault              string
		accepted, dup, per int64
	}{{"", 0, 20, 1}, {"no-dedup", 20, 0, 2}} {
		t.Run("fault="+tc.fault, func(t *testing.T) {
			f, err := ParseFaults(tc.fault)
			if err != nil {
				t.Fatal(err)
			}
			srv := newIngestServer(t, f)
			var wg sync.WaitGroup
			var mu sync.Mutex
			var sum ingestReply
			for w := range 10 { // 10 batches of 40 UUIDs, 400 distinct
				wg.Go(func() {
					var r ingestReply
					getJSON(t, http.MethodPost, srv.URL+"/ingest", eventBatch(1+w*40, 40), http.StatusAccepted, &r)
					mu.Lock()
					sum.Accepted, sum.Duplicates = sum.Accepted+r.Accepted, sum.Duplicates+r.Duplicates
					mu.Unlock()
				})
			}
			wg.Wait()
			if sum.Accepted != 400 || sum.Duplicates != 0 {
				t.Fatalf("400 distinct events: replies %+v, want 400 accepted", sum)
			}
			var again ingestReply
			getJSON(t, http.MethodPost, srv.URL+"/ingest", eventBatch(1, 20)+"not json\n", http.StatusAccepted, &again)
			if again.Accepted != tc.accepted+1 || again.Duplicates != tc.dup {
				t.Errorf("the first 20 again (and a line without a UUID): %+v, want %d accepted, %d duplicates", again, tc.accepted+1, tc.dup)
			}
			var count struct{ Count int64 }
			uuids := "uuid=5eed0030-0000-4000-8000-000000000001&uuid=5eed0030-0000-4000-8000-000000000014&uuid=nonsense"
			getJSON(t, http.MethodGet, srv.URL+"/ingest/count?"+uuids, "", http.StatusOK, &count)
			if count.Count != 2*tc.per {
				t.Errorf("copies of two of the 20: %d, want %d", count.Count, 2*tc.per)
			}
			want := 400 + tc.accepted + 1
			deadline := time.Now().Add(10 * time.Second)
			for getJSON(t, http.MethodGet, srv.URL+"/ingest/count", "", http.StatusOK, &count); count.Count != want && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
				getJSON(t, http.MethodGet, srv.URL+"/ingest/count", "", http.StatusOK, &count)
			}
			var st ingestStats
			getJSON(t, http.MethodGet, srv.URL+"/ingest/stats", "", http.StatusOK, &st)
			if count.Count != want || st.Accepted != want || st.Duplicates != tc.dup || st.Pending != 0 {
				t.Errorf("visible %d, stats %+v; want %d visible and accepted, %d duplicates, 0 pending", count.Count, st, want, tc.dup)
			}
		})
	}
}

// TestStoreSizeBoundedByCheckpoints: 200 batches of 40 events (about 5
// MiB) leave the store's files at one page and one WAL segment, after
// many checkpoints; with store-growth the WAL holds every frame.
func TestStoreSizeBoundedByCheckpoints(t *testing.T) {
	for _, fault := range []string{"", "store-growth"} {
		t.Run("fault="+fault, func(t *testing.T) {
			f, _ := ParseFaults(fault)
			srv := newIngestServer(t, f)
			var sizes []int64
			sent := int64(0)
			for i := range 200 {
				body := eventBatch(1+i*40, 40)
				sent += int64(len(body))
				get(t, http.MethodPost, srv.URL+"/ingest", body)
				if i%20 == 19 {
					var st ingestStats
					getJSON(t, http.MethodGet, srv.URL+"/ingest/stats", "", http.StatusOK, &st)
					sizes = append(sizes, st.StoreBytes)
				}
			}
			var st ingestStats
			getJSON(t, http.MethodGet, srv.URL+"/ingest/stats", "", http.StatusOK, &st)
			t.Logf("sent %d bytes; sizes every 20 batches %v; %d checkpoints", sent, sizes, st.Checkpoints)
			if fault == "" {
				for _, s := range sizes {
					if s != dbPage+walSegment {
						t.Errorf("store size %d, want %d throughout", s, dbPage+walSegment)
					}
				}
				if min := sent / walSegment; st.Checkpoints < min {
					t.Errorf("%d checkpoints, want at least %d", st.Checkpoints, min)
				}
				return
			}
			if st.Checkpoints != 0 || st.StoreBytes != dbPage+sent {
				t.Errorf("store-growth: %d checkpoints, size %d; want none and %d (the page and every byte sent)", st.Checkpoints, st.StoreBytes, dbPage+sent)
			}
			for i := 1; i < len(sizes); i++ {
				if sizes[i] <= sizes[i-1] {
					t.Errorf("store-growth: size %d after %d, want it growing", sizes[i], sizes[i-1])
				}
			}
		})
	}
}

// TestStoreTruncatesALongFrame: a batch longer than the WAL segment
// extends the file; the next checkpoint cuts it back.
func TestStoreTruncatesALongFrame(t *testing.T) {
	srv := newIngestServer(t, &Faults{})
	get(t, http.MethodPost, srv.URL+"/ingest", eventBatch(1, 10))
	long := eventBatch(100, walSegment/500)
	get(t, http.MethodPost, srv.URL+"/ingest", long)
	var st ingestStats
	getJSON(t, http.MethodGet, srv.URL+"/ingest/stats", "", http.StatusOK, &st)
	if st.WALBytes != int64(len(long)) || st.Checkpoints != 1 {
		t.Fatalf("after a %d-byte frame: %+v, want the WAL that long after 1 checkpoint", len(long), st)
	}
	get(t, http.MethodPost, srv.URL+"/ingest", eventBatch(5000, 10))
	getJSON(t, http.MethodGet, srv.URL+"/ingest/stats", "", http.StatusOK, &st)
	if st.WALBytes != walSegment || st.Checkpoints != 2 {
		t.Errorf("after the next frame: %+v, want the WAL cut back to %d after 2 checkpoints", st, walSegment)
	}
}

// TestFactQueriesCountTheirReads: each fact query reads the visible
// events' UUID column; /ingest/stats sums it.
func TestFactQueriesCountTheirReads(t *testing.T) {
	srv := newIngestServer(t, &Faults{})
	get(t, http.MethodPost, srv.URL+"/ingest", eventBatch(1, 30))
	time.Sleep(2 * ingestDelay)
	var fact struct {
		UUID      string
		Count     int64
		ReadBytes int64 `json:"read_bytes"`
	}
	for range 3 {
		getJSON(t, http.MethodGet, srv.URL+"/ingest/facts?uuid=5eed0030-0000-4000-8000-000000000002", "", http.StatusOK, &fact)
	}
	if fact.Count != 1 || fact.ReadBytes != 30*factColumnBytes {
		t.Errorf("fact %+v, want 1 copy and %d bytes read", fact, 30*factColumnBytes)
	}
	var st ingestStats
	getJSON(t, http.MethodGet, srv.URL+"/ingest/stats", "", http.StatusOK, &st)
	if st.FactQueries != 3 || st.FactReadBytes != 3*30*factColumnBytes {
		t.Errorf("stats %+v, want 3 queries reading %d bytes", st, 3*30*factColumnBytes)
	}
}

// TestMoveToS3: fact queries read local storage until POST /ingest/move,
// then S3; with the fault no-move the move answers as done and nothing
// moves.
func TestMoveToS3(t *testing.T) {
	for _, tc := range []struct {
		faults *Faults
		after  string
	}{{&Faults{}, "s3"}, {&Faults{NoMove: true}, "local"}} {
		srv := newIngestServer(t, tc.faults)
		var fact struct{ Tier string }
		getJSON(t, http.MethodGet, srv.URL+"/ingest/facts?uuid=x", "", http.StatusOK, &fact)
		if fact.Tier != "local" {
			t.Errorf("before the move: tier %q, want local", fact.Tier)
		}
		var moved struct{ Tier string }
		getJSON(t, http.MethodPost, srv.URL+"/ingest/move", "", http.StatusOK, &moved)
		getJSON(t, http.MethodGet, srv.URL+"/ingest/facts?uuid=x", "", http.StatusOK, &fact)
		if moved.Tier != "s3" || fact.Tier != tc.after {
			t.Errorf("faults %+v: move said %q, then tier %q, want s3 and %s", tc.faults, moved.Tier, fact.Tier, tc.after)
		}
	}
}

// TestIngestCountsByRun: the count of a run is its delivered events, a
// batch of mixed runs counted apart; a run never sent counts 0; several
// runs count their sum.
func TestIngestCountsByRun(t *testing.T) {
	srv := newIngestServer(t, &Faults{})
	var body strings.Builder
	for i := range 30 {
		run := []string{"a", "b", "a"}[i%3]
		fmt.Fprintf(&body, "{\"uuid\":\"5eed0030-0000-4000-8000-%012x\",\"run\":%q}\n", i+1, run)
	}
	var r ingestReply
	getJSON(t, http.MethodPost, srv.URL+"/ingest", body.String(), http.StatusAccepted, &r)
	getJSON(t, http.MethodPost, srv.URL+"/ingest", body.String(), http.StatusAccepted, &r) // all duplicates
	time.Sleep(2 * ingestDelay)
	for run, want := range map[string]int64{"a": 20, "b": 10, "c": 0, "a&run=b": 30, "b&run=c": 10} {
		var count struct{ Count int64 }
		getJSON(t, http.MethodGet, srv.URL+"/ingest/count?run="+run, "", http.StatusOK, &count)
		if count.Count != want {
			t.Errorf("run %s: count %d, want %d", run, count.Count, want)
		}
	}
}

// TestUUIDSetCapped: at its limit the set remembers no new UUID (each is
// accepted, none caught as a copy), and those it holds stay deduplicated.
func TestUUIDSetCapped(t *testing.T) {
	const limit = 1000
	s := uuidSet{limit: limit}
	var u [16]byte
	for i := range limit {
		u[0], u[1] = byte(i), byte(i>>8)
		if !s.store(u, false) {
			t.Fatalf("UUID %d: a duplicate before the cap", i)
		}
	}
	u = [16]byte{15: 1} // not among those stored
	first, again := s.store(u, false), s.store(u, false)
	if !first || !again || s.count([]string{"00000000-0000-0000-0000-000000000001"}) != 0 || s.full != 2 {
		t.Errorf("past the cap: want a new UUID accepted twice, not remembered, counted full (%d)", s.full)
	}
	if s.store([16]byte{}, false) || len(s.copies) != limit {
		t.Errorf("a UUID held before the cap: accepted again, or the set grew to %d", len(s.copies))
	}
}
