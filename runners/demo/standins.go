package demo

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Stand-ins for routes of the servers in the seed campaigns, so that the
// plans in examples/ run against the demo target:
//
//	POST /ingest                     202 {"accepted":A,"duplicates":D}; one event per non-empty
//	                                 line of the body, deduplicated by its "uuid"; the new ones
//	                                 are written to the store and queued for delivery (delivered
//	                                 ingestDelay after): ingest.go
//	GET  /ingest/count[?run=R|uuid=U…]
//	                                 {"count":N}: the events delivered so far (ClickHouse's
//	                                 count); with run=, those whose "run" is R; with uuid=,
//	                                 the stored copies of those UUIDs
//	GET  /ingest/facts?uuid=U        a historical fact query: {"uuid":U,"count":C,"read_bytes":B}
//	GET  /ingest/stats               {"accepted","delivered","pending","oldest_age_ms",
//	                                 "duplicates","store_bytes","wal_bytes","checkpoints",
//	                                 "fact_queries","fact_read_bytes"}
//	GET  /gate?key=K&burst=B&rate=R  a token bucket per key (B tokens, R refilled a second):
//	                                 200 while it holds a token, else 429
//	ANY  /publish?world=W&ms=N&interval_ms=I
//	                                 one write at a time per world, each taking N ms (default
//	                                 60) and committed at least I ms after the world's last
//	                                 (default 1500)
//	POST /mail                       delivers one message to a mailbox (a Mailpit stand-in): 202
//	GET  /mail                       {"total":N}: the messages delivered since the last DELETE
//	DELETE /mail                     empties the mailbox
//
// The QUIC stream server answers LOOKUP and LIST with a short index
// (answerStandIn).
//
// Faults (faults.go) break each stand-in's one behaviour: gate-open (no
// 429), mail-twice (each message delivered twice), no-pacing (commits not
// paced), stuck-queue (nothing delivered from /ingest's queue), no-dedup
// (no duplicate refused), store-growth (the store never checkpoints); errors,
// slow and leak touch every app route, fd-leak, stream-cap and
// unclean-close the SSE streams of /events, dedup-full the sessions.
type standIns struct {
	f       *Faults
	mailbox atomic.Int64 // messages delivered to /mail since its last DELETE

	mu      sync.Mutex
	buckets map[string]*bucket
	worlds  map[string]*world
}

// maxKeys bounds the buckets and worlds a client can make the server hold.
const maxKeys = 1024

// world is one store's commit pacing.
type world struct {
	commit     chan struct{} // a one-slot semaphore: one write at a time
	lastCommit time.Time     // guarded by commit
}

type bucket struct {
	tokens float64
	last   time.Time
}

// registerStandIns adds the stand-in routes to mux; /ingest writes to
// store (nil: none).
func registerStandIns(mux *http.ServeMux, f *Faults, store *Store) {
	s := &standIns{f: f, buckets: map[string]*bucket{}, worlds: map[string]*world{}}
	in := &ingest{f: f, store: store}
	in.register(mux)
	mux.HandleFunc("/gate", s.gate)
	mux.HandleFunc("/publish", s.publish)
	mux.HandleFunc("/mail", s.mail)
}

// mail stands in for a mail catcher (Mailpit): a send through the API
// delivers one message; the count is read and reset as Mailpit's
// GET and DELETE /api/v1/messages do.
func (s *standIns) mail(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		s.mailbox.Add(1)
		if s.f.MailTwice {
			s.mailbox.Add(1)
		}
		w.WriteHeader(http.StatusAccepted)
	case http.MethodDelete:
		s.mailbox.Store(0)
	case http.MethodGet:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, "{\"total\":%d}\n", s.mailbox.Load())
	default:
		http.Error(w, "POST a message, GET the count, DELETE to empty", http.StatusMethodNotAllowed)
	}
}

func (s *standIns) gate(w http.ResponseWriter, r *http.Request) {
	burst, rate := queryFloat(r, "burst", 100), queryFloat(r, "rate", 100)
	if burst < 1 || rate < 0 {
		http.Error(w, "want burst >= 1 and rate >= 0", http.StatusBadRequest)
		return
	}
	key := r.URL.Query().Get("key") + " " + strconv.FormatFloat(burst, 'g', -1, 64) + " " + strconv.FormatFloat(rate, 'g', -1, 64)
	now := time.Now()
	s.mu.Lock()
	b := s.buckets[key]
	if b == nil {
		if len(s.buckets) >= maxKeys {
			clear(s.buckets)
		}
		b = &bucket{tokens: burst, last: now}
		s.buckets[key] = b
	}
	b.tokens = min(burst, b.tokens+now.Sub(b.last).Seconds()*rate)
	b.last = now
	ok := b.tokens >= 1 || s.f.GateOpen
	if ok {
		b.tokens--
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, "rate limited", http.StatusTooManyRequests)
		return
	}
	w.Write([]byte("allowed\n"))
}

// publish models a store that commits one write at a time per world and
// paces its commits (seed 002: 1.5 s between head-object commits): back
// to back, a write takes the interval; spaced out, it takes ms.
func (s *standIns) publish(w http.ResponseWriter, r *http.Request) {
	ms := time.Duration(min(queryInt(r, "ms", 60), 60_000)) * time.Millisecond
	interval := time.Duration(min(queryInt(r, "interval_ms", 1500), 60_000)) * time.Millisecond
	if s.f.NoPacing {
		interval = 0
	}
	wd := s.world(r.URL.Query().Get("world"))
	select {
	case wd.commit <- struct{}{}:
	case <-r.Context().Done():
		return
	}
	defer func() { <-wd.commit }()
	t := time.NewTimer(max(ms, time.Until(wd.lastCommit.Add(interval))))
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return // nothing committed: the pacing is unchanged
	}
	wd.lastCommit = time.Now()
	w.Write([]byte("published\n"))
}

// world returns the pacing of the named world, made on first use.
func (s *standIns) world(name string) *world {
	s.mu.Lock()
	defer s.mu.Unlock()
	wd := s.worlds[name]
	if wd == nil {
		if len(s.worlds) >= maxKeys {
			clear(s.worlds) // writes in flight keep theirs
		}
		wd = &world{commit: make(chan struct{}, 1)}
		s.worlds[name] = wd
	}
	return wd
}

// answerStandIn answers the QUIC verbs of the knowledge server in seed 002
// that the demo has no real data for: LOOKUP <term> and LIST <path> get a
// short index that depends only on the argument.
func answerStandIn(cmd, arg []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s %s\n\n", cmd, arg)
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "- /%s/%d.md\n", bytes.Trim(arg, "/ "), i)
	}
	return b.Bytes()
}
