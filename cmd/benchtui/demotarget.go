package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/demo"
)

// cmdDemoTarget serves the built-in demo servers until SIGTERM or SIGINT,
// then drains in-flight HTTP requests (up to --drain) before exiting. It
// prints each bound address on stdout ("http 127.0.0.1:PORT") so a plan can
// wait for it. --fault breaks behaviours on purpose (demo.Faults), so that
// a plan's checks can be seen to fail; slow-start, no-drain and hang-exit
// are this command's own.
func cmdDemoTarget(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var d demoFlags
	fs := demoFlagSet(&d)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if d.opts.SlowPath < 0 || d.opts.SlowPath > demo.MaxSlowPath {
		fmt.Fprintf(stderr, "demo-target: --slow-path is 0 to %s\n", demo.MaxSlowPath)
		return exitUsage
	}
	if d.opts.Sessions.KB < 0 || d.opts.Sessions.KB > 1024 || d.opts.Sessions.DedupCap < 0 || d.opts.Sessions.TTL < 0 {
		fmt.Fprintln(stderr, "demo-target: --session-kb is 0 to 1024, --dedup-cap and --session-ttl at least 0")
		return exitUsage
	}
	if d.opts.TokenLife <= 0 || d.opts.TokenLife > 24*time.Hour {
		fmt.Fprintln(stderr, "demo-target: --token-life is above 0 and at most 24h")
		return exitUsage
	}
	faults, err := demo.ParseFaults(d.faults)
	if err != nil {
		fmt.Fprintln(stderr, "demo-target: --fault:", err)
		return exitUsage
	}
	d.opts.Faults, d.opts.Log = faults, stderr
	store, cleanup, err := openDemoStore(d.store, faults.StoreGrowth)
	if err != nil {
		fmt.Fprintln(stderr, "demo-target: --store:", err)
		return exitFail
	}
	defer cleanup()
	d.opts.Store = store
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if faults.SlowStart > 0 && !runners.SleepUntil(ctx, time.Now().Add(faults.SlowStart)) {
		return exitOK
	}
	h := demo.NewHandlerWith(d.opts)
	srv, err := serveDemoHTTP(d, h)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	fmt.Fprintln(stdout, "http", srv.Addr())
	go h.Background(ctx) // the loop-lag gauges; the fault stall
	closers, err := serveQUIC(ctx, d.quic, d.h3, h, faults, stdout)
	if err == nil {
		var more []func()
		more, err = serveGRPC(d.grpc, stdout)
		closers = append(closers, more...)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		srv.Shutdown(context.Background())
		return exitFail
	}
	<-ctx.Done()
	for _, c := range closers {
		c()
	}
	code := exitOK
	if faults.NoDrain {
		srv.Close() // every connection closed at once
	} else {
		code = drainHTTP(srv, d.drain, stderr)
	}
	// The server's own count, for a client's to be checked against when
	// its /metrics cannot be read (--reuseport: any process may answer).
	fmt.Fprintf(stderr, "demo-target: /events sent %d events\n", h.SSESent())
	if faults.HangExit {
		cleanup() // the deferred one never runs: the fault hang-exit never exits by itself
		for {
			time.Sleep(time.Hour)
		}
	}
	return code
}

// serveDemoHTTP serves h on --http, sharing the port with other
// processes under --reuseport.
func serveDemoHTTP(d demoFlags, h http.Handler) (*demo.Server, error) {
	if !d.reuseport {
		return demo.ServeHTTP(d.http, h)
	}
	ln, err := demo.ListenReusePort(d.http)
	if err != nil {
		return nil, err
	}
	return demo.ServeHTTPOn(ln, h), nil
}

// drainHTTP shuts srv down, letting in-flight requests finish for up to
// drain.
func drainHTTP(srv *demo.Server, drain time.Duration, stderr io.Writer) int {
	dctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := srv.Shutdown(dctx); err != nil {
		fmt.Fprintln(stderr, "demo-target: drain cut short:", err)
		return exitFail
	}
	return exitOK
}

// demoFlags are the options of demo-target.
type demoFlags struct {
	http, quic, h3 string
	grpc           string
	faults         string // --fault's list
	store          string // --store's directory; empty: a temporary one
	drain          time.Duration
	reuseport      bool // --http's port shared with other processes (SO_REUSEPORT)
	opts           demo.Options
}

// demoFlagSet defines the flags of demo-target into d.
func demoFlagSet(d *demoFlags) *flag.FlagSet {
	fs := flagSet("demo-target")
	fs.StringVar(&d.http, "http", "127.0.0.1:0", "TCP address of the HTTP API (/ping, /work, /leak, /events)")
	fs.StringVar(&d.quic, "quic", "", "UDP address of the QUIC stream server (ALPN benchtui-echo); empty: off")
	fs.StringVar(&d.h3, "h3", "", "UDP address of the HTTP/3 endpoint; empty: off")
	fs.StringVar(&d.grpc, "grpc", "", "TCP address of the gRPC stand-in (benchtui.demo.Bench, plaintext, reflection on); empty: off")
	fs.BoolVar(&d.reuseport, "reuseport", false, "listen on --http with SO_REUSEPORT (Unix), so that several demo-targets serve one port: a server past one process's open-files limit")
	fs.DurationVar(&d.drain, "drain", 10*time.Second, "how long in-flight requests may finish after SIGTERM")
	fs.DurationVar(&d.opts.Sessions.TTL, "session-ttl", 0, "idle time after which a session is swept (every TTL/2); 0: kept")
	fs.IntVar(&d.opts.Sessions.KB, "session-kb", 8, "memory each live session holds, in KiB")
	fs.DurationVar(&d.opts.SlowPath, "slow-path", 0, "CPU each /work burns in demo.slowPath first: a deliberate regression for a CPU profile to find; 0: none")
	fs.DurationVar(&d.opts.TokenLife, "token-life", demo.DefaultTokenLife, "how long a POST /token token lives when the request gives no ?life=")
	fs.StringVar(&d.faults, "fault", "", "faults to break behaviours on purpose, NAME[=VALUE][,NAME…]; empty: none. The faults:\n"+demo.FaultHelp)
	fs.StringVar(&d.store, "store", "", "directory of /ingest's store (ingest.db, ingest.db-wal: a SQLite-in-WAL-mode stand-in), made afresh; empty: a temporary one, removed at exit")
	fs.IntVar(&d.opts.Sessions.DedupCap, "dedup-cap", 0, "sessions a dedup store holds; past it each new session logs a WARN; 0: no store")
	return fs
}

// serveQUIC starts the optional QUIC stream and HTTP/3 servers.
func serveQUIC(ctx context.Context, quicAddr, h3Addr string, h *demo.Handler, faults *demo.Faults, stdout io.Writer) ([]func(), error) {
	if quicAddr == "" && h3Addr == "" {
		return nil, nil
	}
	tlsConf, err := demo.SelfSignedTLS()
	if err != nil {
		return nil, err
	}
	var closers []func()
	if quicAddr != "" {
		q, err := demo.ServeQUICWith(ctx, quicAddr, tlsConf, faults)
		if err != nil {
			return nil, err
		}
		fmt.Fprintln(stdout, "quic", q.Addr())
		closers = append(closers, func() { q.Close() })
	}
	if h3Addr != "" {
		s, err := demo.ServeHTTP3(ctx, h3Addr, tlsConf, h)
		if err != nil {
			return closers, err
		}
		fmt.Fprintln(stdout, "h3", s.Addr())
		closers = append(closers, func() { s.Close() })
	}
	return closers, nil
}

// serveGRPC starts the optional gRPC stand-in.
func serveGRPC(addr string, stdout io.Writer) ([]func(), error) {
	if addr == "" {
		return nil, nil
	}
	s, err := demo.ServeGRPC(addr)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(stdout, "grpc", s.Addr())
	return []func(){s.Close}, nil
}

// openDemoStore opens /ingest's store in dir, or in a temporary
// directory when dir is empty; cleanup closes it (and removes the
// temporary directory).
func openDemoStore(dir string, growth bool) (store *demo.Store, cleanup func(), err error) {
	temp := dir == ""
	if temp {
		if dir, err = os.MkdirTemp("", "benchtui-demo-store-"); err != nil {
			return nil, nil, err
		}
	}
	if store, err = demo.OpenStore(dir, growth); err != nil {
		if temp {
			os.RemoveAll(dir)
		}
		return nil, nil, err
	}
	return store, func() {
		store.Close()
		if temp {
			os.RemoveAll(dir)
		}
	}, nil
}
