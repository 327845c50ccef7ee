// Package demo holds benchtui's built-in demo servers: HTTP (/ping,
// /work, /leak, /events), a QUIC stream server and HTTP/3. The built-in
// demo plan loads them, run as `benchtui demo-target` in a child process so
// that the console watches a process other than itself.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Handler is the demo HTTP API:
//
//	/ping            200 "pong"
//	/work?ms=N       waits N ms (default 5), then 200; first burns Options.SlowPath of CPU
//	/leak?kb=N       retains N KB (default 64) for good, so a soak finds a leak
//	/events?rate=N   Server-Sent Events, N per second
//	/session         POST opens a session: Mcp-Session-Id header, JSON body
//	/call            POST with a session's Mcp-Session-Id: 200 token=…, else 401
//	/ingest, /gate, /publish, /mail   stand-ins for the seed campaigns' routes (standins.go)
//	/token, /auth/   an OAuth token endpoint whose tokens expire, and the API behind it (token.go)
//	/vault/          a secrets vault whose master key rotates under reads (vault.go)
//	/ingest/stats    the /ingest stand-in's queue, store and fact reads (ingest.go)
//	/metrics         Prometheus exposition: Go runtime, process, demo_sessions_live, demo_leaked_bytes,
//	                 demo_loop_lag_p99_seconds, demo_loop_lag_max_seconds (looplag.go),
//	                 demo_doctor_fd_cost_per_stream (the doctor's fd estimate a stream: 1),
//	                 demo_sse_events_sent_total, demo_sse_streams_open (/events' own count)
//	/debug/pprof/    net/http/pprof (/debug/pprof/heap for heap profiles)
//	/healthz         200 once serving
//
// Options.Faults break it on purpose (faults.go), so that a plan's checks
// can be seen to fail against it.
type Handler struct {
	mu       sync.Mutex
	retained [][]byte
	leaked   int64 // bytes in retained
	sessions sessions
	tokens   *tokens
	mux      *http.ServeMux
	root     http.Handler // mux behind the faults errors, slow and leak
	faults   *Faults
	ending   chan struct{} // closed by EndStreams
	sse      sseCounts     // /events' streams, for /metrics
	endOnce  sync.Once
	slow     time.Duration // CPU each /work burns in slowPath
	lag      *loopLag      // run by Background
}

// Options shape the demo HTTP API; the zero value is the default.
type Options struct {
	// Sessions shape the session store (/session, /call).
	Sessions SessionOptions
	// Log receives the server's log lines (session sweeps, WARNs);
	// nil: discarded.
	Log io.Writer
	// TokenLife is how long a POST /token token lives when the request
	// gives no ?life= (0: DefaultTokenLife).
	TokenLife time.Duration
	// SlowPath is the CPU time each /work request burns in slowPath
	// before it waits (at most MaxSlowPath); 0: none.
	SlowPath time.Duration
	// Faults break behaviours on purpose (demo-target's --fault); nil:
	// none.
	Faults *Faults
	// Store is what /ingest writes its new events to (OpenStore); nil:
	// no store, and /ingest/stats says 0 for its sizes. Its opener
	// closes it.
	Store *Store
}

// NewHandler returns the demo HTTP API with default options (no store).
func NewHandler() *Handler { return NewHandlerWith(Options{}) }

// NewHandlerWith returns the demo HTTP API shaped by opts.
func NewHandlerWith(opts Options) *Handler {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Faults == nil {
		opts.Faults = &Faults{}
	}
	h := &Handler{mux: http.NewServeMux(), ending: make(chan struct{}), slow: min(opts.SlowPath, MaxSlowPath), faults: opts.Faults, lag: newLoopLag()}
	h.root = opts.Faults.wrap(h.mux)
	h.sessions = sessions{opts: opts.Sessions, log: log.New(opts.Log, "", log.LstdFlags), dedupFull: opts.Faults.DedupFull}
	h.mux.HandleFunc("/ping", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("pong\n")) })
	h.mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	h.mux.HandleFunc("/work", h.work)
	h.mux.HandleFunc("/leak", h.leak)
	h.mux.Handle("/events", sseHandler(10, h.ending, opts.Faults, &h.sse))
	registerWebSocket(h.mux, h.ending) // /ws/echo, /ws/feed: see ws.go
	h.mux.HandleFunc("/session", h.sessions.start)
	h.mux.HandleFunc("/call", h.sessions.call)
	registerStandIns(h.mux, opts.Faults, opts.Store) // /ingest, /gate, /publish, /mail: see standins.go
	registerVault(h.mux, opts.Faults)                // /vault/: see vault.go
	h.tokens = registerTokens(h.mux, opts.TokenLife) // /token, /auth/: see token.go
	h.registerObservability()                        // /metrics, /debug/pprof/: see observe.go
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.root.ServeHTTP(w, r) }

// EndStreams ends every event stream, each with a proper end of response,
// as a server draining for shutdown should; ServeHTTP's server calls it
// when Shutdown begins.
func (h *Handler) EndStreams() { h.endOnce.Do(func() { close(h.ending) }) }

// SSESent is how many events /events has written and flushed, of every
// stream (/metrics' demo_sse_events_sent_total).
func (h *Handler) SSESent() int64 { return h.sse.sent.Load() }

func queryInt(r *http.Request, key string, def int) int {
	if v, err := strconv.Atoi(r.URL.Query().Get(key)); err == nil && v >= 0 {
		return v
	}
	return def
}

func (h *Handler) work(w http.ResponseWriter, r *http.Request) {
	ms := min(queryInt(r, "ms", 5), 60_000)
	if h.faults.FastWork {
		ms = 0
	}
	if h.slow > 0 {
		slowSink.Add(slowPath(h.slow)) // kept, so the loop is not optimised away
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		fmt.Fprintf(w, "worked %d ms\n", ms)
	case <-r.Context().Done():
	}
}

// leak retains memory that is touched, so it shows in RSS.
func (h *Handler) leak(w http.ResponseWriter, r *http.Request) {
	kb := min(queryInt(r, "kb", 64), 64*1024)
	b := make([]byte, kb*1024)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	h.mu.Lock()
	h.retained = append(h.retained, b)
	h.leaked += int64(len(b))
	n := len(h.retained)
	h.mu.Unlock()
	fmt.Fprintf(w, "retained %d blocks\n", n)
}

// Server is a running demo HTTP server.
type Server struct {
	srv *http.Server
	ln  net.Listener
	wg  sync.WaitGroup
}

// ServeHTTP starts the demo HTTP API on addr ("127.0.0.1:0" for a free
// port) and serves until Shutdown.
func ServeHTTP(addr string, h http.Handler) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("demo http: listening on %s: %w", addr, err)
	}
	return ServeHTTPOn(ln, h), nil
}

// ServeHTTPOn is ServeHTTP on a listener of the caller's (one of
// ListenReusePort's).
func ServeHTTPOn(ln net.Listener, h http.Handler) *Server {
	s := &Server{srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, ln: ln}
	if e, ok := h.(interface{ EndStreams() }); ok {
		s.srv.RegisterOnShutdown(e.EndStreams) // streams never go idle by themselves
	}
	s.wg.Go(func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Println("demo http:", err)
		}
	})
	return s
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops accepting and closes every connection at once, cutting the
// requests in flight (demo-target's fault no-drain).
func (s *Server) Close() error {
	err := s.srv.Close()
	s.wg.Wait()
	return err
}

// Shutdown stops accepting, lets in-flight requests finish until ctx ends,
// then closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		s.srv.Close()
	}
	s.wg.Wait()
	return err
}
