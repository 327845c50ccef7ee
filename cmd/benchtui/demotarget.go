package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/runners/demo"
)

// cmdDemoTarget serves the built-in demo servers until SIGTERM or SIGINT,
// then drains in-flight HTTP requests (up to --drain) before exiting. It
// prints each bound address on stdout ("http 127.0.0.1:PORT") so a plan can
// wait for it.
func cmdDemoTarget(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var d demoFlags
	fs := demoFlagSet(&d)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	h := demo.NewHandler()
	srv, err := demo.ServeHTTP(d.http, h)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	fmt.Fprintln(stdout, "http", srv.Addr())
	closers, err := serveQUIC(ctx, d.quic, d.h3, h, stdout)
	if err != nil {
		fmt.Fprintln(stderr, err)
		srv.Shutdown(context.Background())
		return exitFail
	}
	<-ctx.Done()
	for _, c := range closers {
		c()
	}
	dctx, cancel := context.WithTimeout(context.Background(), d.drain)
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
	drain          time.Duration
}

// demoFlagSet defines the flags of demo-target into d.
func demoFlagSet(d *demoFlags) *flag.FlagSet {
	fs := flagSet("demo-target")
	fs.StringVar(&d.http, "http", "127.0.0.1:0", "TCP address of the HTTP API (/ping, /work, /leak, /events)")
	fs.StringVar(&d.quic, "quic", "", "UDP address of the QUIC stream server (ALPN benchtui-echo); empty: off")
	fs.StringVar(&d.h3, "h3", "", "UDP address of the HTTP/3 endpoint; empty: off")
	fs.DurationVar(&d.drain, "drain", 10*time.Second, "how long in-flight requests may finish after SIGTERM")
	return fs
}

// serveQUIC starts the optional QUIC stream and HTTP/3 servers.
func serveQUIC(ctx context.Context, quicAddr, h3Addr string, h *demo.Handler, stdout io.Writer) ([]func(), error) {
	if quicAddr == "" && h3Addr == "" {
		return nil, nil
	}
	tlsConf, err := demo.SelfSignedTLS()
	if err != nil {
		return nil, err
	}
	var closers []func()
	if quicAddr != "" {
		q, err := demo.ServeQUIC(ctx, quicAddr, tlsConf)
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
