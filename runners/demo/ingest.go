package demo

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// factColumnBytes is what a fact query reads per visible event: the
// UUID's 36 bytes of text, as ClickHouse scanning the uuid column of the
// moved partition without an index would (seed 003's 12.78 GiB over 3,000
// queries of 120,000 events is about that much a query).
const factColumnBytes = 36

// maxCountUUIDs bounds the uuid= parameters of one /ingest/count.
const maxCountUUIDs = 100

// ingest stands in for seed 003's ingestion API and the ClickHouse table
// behind it: POST /ingest accepts events, one a line, deduplicated by
// their "uuid" (uuidSet), appends the new ones to the store (store.go)
// and queues them for delivery (queue.go); what is delivered is visible
// to /ingest/count and the fact queries.
type ingest struct {
	f          *Faults
	uuids      uuidSet
	queue      ingestQueue
	store      *Store // nil: no store (Options.StoreDir empty)
	accepted   atomic.Int64
	duplicates atomic.Int64
	facts      atomic.Int64 // fact queries answered
	factBytes  atomic.Int64 // what they read (factColumnBytes a visible event)
	moved      atomic.Bool  // the receipts partition is on cold (S3) storage
}

// register adds the routes to mux.
func (in *ingest) register(mux *http.ServeMux) {
	in.queue.stuck = in.f.StuckQueue
	mux.HandleFunc("/ingest", in.post)
	mux.HandleFunc("/ingest/count", in.count)
	mux.HandleFunc("/ingest/facts", in.fact)
	mux.HandleFunc("POST /ingest/move", in.move)
	mux.HandleFunc("/ingest/stats", in.stats)
}

// post accepts a batch: each non-empty line is an event; one whose UUID
// was stored before is a duplicate (unless the fault no-dedup is on).
// The reply is 202 {"accepted":A,"duplicates":D}.
func (in *ingest) post(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST events, one a line", http.StatusMethodNotAllowed)
		return
	}
	sc := bufio.NewScanner(io.LimitReader(r.Body, 64<<20))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var frame []byte
	var n, dups int64
	runs := map[string]int64{} // the new events by their "run"
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		u, ok, run := eventFields(line)
		if ok && !in.uuids.store(u, in.f.NoDedup) {
			dups++
			continue
		}
		n++
		runs[run]++
		frame = append(append(frame, line...), '\n')
	}
	if err := sc.Err(); err != nil {
		http.Error(w, "reading events: "+err.Error(), http.StatusBadRequest)
		return
	}
	in.store.append(frame, n)
	in.accepted.Add(n)
	in.duplicates.Add(dups)
	now := time.Now()
	for run, k := range runs {
		in.queue.add(run, k, now)
	}
	writeJSON(w, http.StatusAccepted, map[string]int64{"accepted": n, "duplicates": dups})
}

// count answers GET /ingest/count: {"count":N}, the events delivered so
// far (ClickHouse's count); with run=R (repeatable, at most
// maxCountUUIDs), those whose "run" is one of them; with uuid=U
// (repeatable, at most maxCountUUIDs), the stored copies of those UUIDs.
func (in *ingest) count(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	uuids, runs := q["uuid"], q["run"]
	if len(uuids) > maxCountUUIDs || len(runs) > maxCountUUIDs {
		http.Error(w, "too many uuid or run parameters", http.StatusBadRequest)
		return
	}
	var n int64
	switch {
	case len(uuids) > 0:
		n = in.uuids.count(uuids)
	case len(runs) > 0:
		now := time.Now()
		for _, run := range runs {
			n += in.queue.Visible(run, now)
		}
	default:
		_, n, _ = in.queue.Stats(time.Now())
	}
	writeJSON(w, http.StatusOK, map[string]int64{"count": n})
}

// move answers POST /ingest/move, seed 003's "moved a receipt partition
// to native S3 storage": {"tier":"s3"}; the fact queries read it from
// there. The fault no-move answers the same and moves nothing.
func (in *ingest) move(w http.ResponseWriter, _ *http.Request) {
	if !in.f.NoMove {
		in.moved.Store(true)
	}
	writeJSON(w, http.StatusOK, map[string]string{"tier": "s3"})
}

// tier is where the fact queries read the receipts: "s3" once moved,
// else "local".
func (in *ingest) tier() string {
	if in.moved.Load() {
		return "s3"
	}
	return "local"
}

// fact answers GET /ingest/facts?uuid=U, a historical UUID-fact query:
// {"uuid":U,"count":C,"read_bytes":B,"tier":T}, C the stored copies of U,
// B what the query read (factColumnBytes for each visible event) and T
// the storage it read them from.
func (in *ingest) fact(w http.ResponseWriter, r *http.Request) {
	u := r.URL.Query().Get("uuid")
	_, visible, _ := in.queue.Stats(time.Now())
	read := visible * factColumnBytes
	in.facts.Add(1)
	in.factBytes.Add(read)
	writeJSON(w, http.StatusOK, map[string]any{"uuid": u, "count": in.uuids.count([]string{u}), "read_bytes": read, "tier": in.tier()})
}

// ingestStats is GET /ingest/stats's reply.
type ingestStats struct {
	Accepted      int64 `json:"accepted"`
	Delivered     int64 `json:"delivered"`
	Pending       int64 `json:"pending"`
	OldestAgeMS   int64 `json:"oldest_age_ms"`
	Duplicates    int64 `json:"duplicates"`
	StoreBytes    int64 `json:"store_bytes"`
	WALBytes      int64 `json:"wal_bytes"`
	Checkpoints   int64 `json:"checkpoints"`
	FactQueries   int64 `json:"fact_queries"`
	FactReadBytes int64 `json:"fact_read_bytes"`
}

// stats answers GET /ingest/stats: the queue, the duplicates, the store's
// files (0 without a store) and the fact queries' reads.
func (in *ingest) stats(w http.ResponseWriter, _ *http.Request) {
	pending, delivered, oldest := in.queue.Stats(time.Now())
	st, err := in.store.stats()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, http.StatusOK, ingestStats{
		Accepted: pending + delivered, Delivered: delivered, Pending: pending, OldestAgeMS: oldest.Milliseconds(),
		Duplicates: in.duplicates.Load(), StoreBytes: st.Bytes, WALBytes: st.WALBytes, Checkpoints: st.Checkpoints,
		FactQueries: in.facts.Load(), FactReadBytes: in.factBytes.Load(),
	})
}

// writeJSON writes v as the JSON body of a reply with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
