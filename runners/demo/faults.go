package demo

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Faults break the demo target on purpose, one stand-in behaviour each,
// so that every check of the example plans can be seen to fail against
// it (`benchtui demo-target --fault NAME[=VALUE][,NAME…]`). The zero
// value breaks nothing. FaultHelp lists them.
type Faults struct {
	LeakKB       int           // leak[=KB]: each reply of an app route and each SSE event retains KB (default 4)
	FDLeak       bool          // fd-leak: each SSE stream opens a file it never closes
	ErrorsEvery  int64         // errors: the 1st, 51st, 101st … reply of the app routes is a 500 (QUIC: a reset)
	Slow         time.Duration // slow[=DUR]: every app route waits DUR first (default 100ms)
	StreamCap    int           // stream-cap[=N]: /events holds at most N streams at once, 503 past it (default 100)
	UncleanClose bool          // unclean-close: shutdown cuts the SSE streams instead of ending them
	GateOpen     bool          // gate-open: /gate never says 429
	MailTwice    bool          // mail-twice: POST /mail delivers each message twice
	NoPacing     bool          // no-pacing: /publish commits at once, ignoring interval_ms
	FastWork     bool          // fast-work: /work answers at once, ignoring ms
	StuckQueue   bool          // stuck-queue: /ingest's delivery queue never drains
	NoDedup      bool          // no-dedup: /ingest stores every copy of an event UUID, none a duplicate
	StoreGrowth  bool          // store-growth: /ingest's store never checkpoints, its WAL grows
	NoMetrics    bool          // no-metrics: /metrics answers 503
	DedupFull    bool          // dedup-full: the dedup store counts as full: every new session WARNs
	BloatMB      int           // bloat[=MB]: the process holds MB of touched memory from its start (default 64)
	SlowStart    time.Duration // slow-start[=DUR]: demo-target waits DUR before it listens (default 3s)
	NoDrain      bool          // no-drain: on SIGTERM demo-target closes every connection at once
	HangExit     bool          // hang-exit: after its drain demo-target does not exit (until SIGKILL)
	Stall        time.Duration // stall[=DUR]: once a second every P spins for DUR (default 200ms): loop lag grows
	Torn         bool          // torn: a key rotation rewrites each vault record in two halves, unlocked
	NoMove       bool          // no-move: POST /ingest/move answers as done and moves nothing
	StaleSeal    bool          // stale-seal: a key rotation reseals no vault record (the old key still unwraps)
	FDEstimate   int           // fd-estimate[=N]: the doctor's estimate says N fds an SSE stream (default 64)

	replies atomic.Int64 // the app routes' replies so far (errors)
	streams atomic.Int64 // the SSE streams open (stream-cap)
	mu      sync.Mutex
	held    [][]byte   // leak's and bloat's memory
	files   []*os.File // fd-leak's files
}

// FaultHelp is one line per fault, for demo-target's -h.
const FaultHelp = `leak[=KB]        each reply of an app route and each SSE event retains KB (default 4): RSS slopes and growth fail
fd-leak          each SSE stream opens a file it never closes: fds_per_unit fails
errors           the 1st, 51st, 101st … reply of the app routes is a 500, a QUIC stream a reset: error_rate fails
slow[=DUR]       every app route waits DUR first (default 100ms): latency ceilings and dropped fail
stream-cap[=N]   /events holds at most N streams at once, 503 past it (default 100): disconnects fail
unclean-close    shutdown cuts the SSE streams instead of ending them: streams_closed_clean fails
gate-open        /gate never says 429: the gate's status counts fail
mail-twice       POST /mail delivers each message twice: the mailbox count fails
no-pacing        /publish commits at once, ignoring interval_ms: the paced p50 ranges fail
fast-work        /work answers at once, ignoring ms: frozen_in_flight fails
stuck-queue      /ingest's delivery queue never drains: pending and oldest age fail
no-dedup         /ingest stores every copy of an event UUID, none is a duplicate: the retried UUIDs' count fails
store-growth     /ingest's store never checkpoints, its WAL grows with every batch: the store's tail slope fails
no-metrics       /metrics answers 503: a metric probe's samples fail
dedup-full       the dedup store counts as full, every new session WARNs: the WARN count fails
bloat[=MB]       the process holds MB of touched memory from its start (default 64): RSS peaks fail
slow-start[=DUR] demo-target waits DUR before it listens (default 3s): reconnect backoffs fail
no-drain         on SIGTERM every connection is closed at once: dropped_in_flight fails
hang-exit        after its drain demo-target does not exit until killed: exited within grace fails
stall[=DUR]      once a second every P spins for DUR (default 200ms): the loop-lag gauges fail
torn             a key rotation rewrites each vault record in two halves: reads return torn values
no-move          POST /ingest/move moves nothing: fact queries read local storage, their tier assertion fails
stale-seal       a key rotation reseals no vault record: the old key never fails loudly
fd-estimate[=N]  the doctor's estimate of fds an SSE stream costs says N (default 64): the cross-check fails
(app routes: all but /healthz, /metrics, /debug/pprof/, /ingest/stats, /ingest/count, /ingest/move and GET or DELETE /mail)`

// errorsEvery is the errors fault's period.
const errorsEvery = 50

// maxLeakedFiles bounds fd-leak's files, below common fd limits.
const maxLeakedFiles = 4096

// maxHeld bounds the memory leak retains (bloat's is given).
const maxHeld = 2 << 30

// ParseFaults reads a comma-separated list of faults, each NAME or
// NAME=VALUE; an empty list is no fault.
func ParseFaults(list string) (*Faults, error) {
	f := &Faults{}
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, hasVal := strings.Cut(item, "=")
		if err := f.set(name, val, hasVal); err != nil {
			return nil, fmt.Errorf("fault %q: %w", item, err)
		}
	}
	if f.BloatMB > 0 {
		f.hold(f.BloatMB << 20)
	}
	return f, nil
}

// flags are the faults that take no value, by name.
func (f *Faults) flags() map[string]*bool {
	return map[string]*bool{"fd-leak": &f.FDLeak, "unclean-close": &f.UncleanClose, "gate-open": &f.GateOpen,
		"mail-twice": &f.MailTwice, "no-pacing": &f.NoPacing, "fast-work": &f.FastWork, "stuck-queue": &f.StuckQueue,
		"no-dedup": &f.NoDedup, "store-growth": &f.StoreGrowth, "no-metrics": &f.NoMetrics, "dedup-full": &f.DedupFull, "no-drain": &f.NoDrain, "hang-exit": &f.HangExit,
		"torn": &f.Torn, "stale-seal": &f.StaleSeal, "no-move": &f.NoMove}
}

// set turns on the fault name with the value val (hasVal: one was given).
func (f *Faults) set(name, val string, hasVal bool) error {
	if on, ok := f.flags()[name]; ok || name == "errors" {
		if hasVal {
			return fmt.Errorf("%s takes no value", name)
		}
		if ok {
			*on = true
		} else {
			f.ErrorsEvery = errorsEvery
		}
		return nil
	}
	var err error
	switch name {
	case "leak":
		f.LeakKB, err = intValue(val, hasVal, 4, 64<<10)
	case "slow":
		f.Slow, err = durValue(val, hasVal, 100*time.Millisecond)
	case "stream-cap":
		f.StreamCap, err = intValue(val, hasVal, 100, 1<<20)
	case "bloat":
		f.BloatMB, err = intValue(val, hasVal, 64, 4<<10)
	case "slow-start":
		f.SlowStart, err = durValue(val, hasVal, 3*time.Second)
	case "fd-estimate":
		f.FDEstimate, err = intValue(val, hasVal, 64, 1<<10)
	case "stall":
		f.Stall, err = durValue(val, hasVal, 200*time.Millisecond)
		if f.Stall >= time.Second {
			err = fmt.Errorf("want a duration under 1s (a stall a second)")
		}
	default:
		return fmt.Errorf("no such fault (want one of: leak, fd-leak, errors, slow, stream-cap, unclean-close, gate-open, mail-twice, no-pacing, fast-work, stuck-queue, no-dedup, store-growth, no-metrics, dedup-full, bloat, slow-start, no-drain, hang-exit, stall, torn, stale-seal, no-move, fd-estimate)")
	}
	return err
}

func intValue(val string, hasVal bool, def, most int) (int, error) {
	if !hasVal {
		return def, nil
	}
	n, err := strconv.Atoi(val)
	if err != nil || n < 1 || n > most {
		return 0, fmt.Errorf("want a whole number from 1 to %d", most)
	}
	return n, nil
}

func durValue(val string, hasVal bool, def time.Duration) (time.Duration, error) {
	if !hasVal {
		return def, nil
	}
	d, err := time.ParseDuration(val)
	if err != nil || d <= 0 || d > time.Minute {
		return 0, fmt.Errorf("want a duration above 0 and at most 1m")
	}
	return d, nil
}

// appRoute reports whether r is to one of the app's routes, those the
// faults errors, slow and leak touch: not readiness, observability,
// /ingest/count and /ingest/move (ClickHouse's count and storage, not the
// app) or the mailbox's reads (a Mailpit stand-in, not the app).
func appRoute(r *http.Request) bool {
	p := r.URL.Path
	switch {
	case p == "/healthz", p == "/metrics", p == "/ingest/stats", p == "/ingest/count", p == "/ingest/move", strings.HasPrefix(p, "/debug/"):
		return false
	case p == "/mail" && r.Method != http.MethodPost:
		return false
	}
	return true
}

// wrap applies the faults errors, slow and leak to the app routes of next.
func (f *Faults) wrap(next http.Handler) http.Handler {
	if f == nil || (f.ErrorsEvery == 0 && f.Slow == 0 && f.LeakKB == 0) {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !appRoute(r) {
			next.ServeHTTP(w, r)
			return
		}
		if f.Slow > 0 && !sleepCtx(r, f.Slow) {
			return
		}
		f.leak()
		if f.fail() {
			http.Error(w, "demo fault: errors", http.StatusInternalServerError)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// fail counts a reply and reports whether the errors fault makes it fail.
func (f *Faults) fail() bool {
	if f == nil || f.ErrorsEvery == 0 {
		return false
	}
	return (f.replies.Add(1)-1)%f.ErrorsEvery == 0
}

// leak retains the leak fault's KB, touched so it shows in RSS.
func (f *Faults) leak() {
	if f != nil && f.LeakKB > 0 {
		f.hold(f.LeakKB << 10)
	}
}

func (f *Faults) hold(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	held := 0
	for _, b := range f.held {
		held += len(b)
	}
	if held+n > maxHeld+f.BloatMB<<20 {
		return
	}
	b := make([]byte, n)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	f.held = append(f.held, b)
}

// leakFile opens a file for the fd-leak fault and keeps it open.
func (f *Faults) leakFile() {
	if f == nil || !f.FDLeak {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.files) >= maxLeakedFiles {
		return
	}
	if fh, err := os.Open(os.DevNull); err == nil {
		f.files = append(f.files, fh)
	}
}

// openStream counts a new SSE stream; false when stream-cap refuses it
// (then it is not counted). closeStream ends one that was counted.
func (f *Faults) openStream() bool {
	if f == nil || f.StreamCap == 0 {
		return true
	}
	if f.streams.Add(1) > int64(f.StreamCap) {
		f.streams.Add(-1)
		return false
	}
	return true
}

func (f *Faults) closeStream() {
	if f != nil && f.StreamCap > 0 {
		f.streams.Add(-1)
	}
}

// sleepCtx waits d or until r's context ends; false when it ended.
func sleepCtx(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}
