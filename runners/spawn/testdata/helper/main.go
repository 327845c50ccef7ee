// Command helper is the test server of package spawn: an HTTP server on
// loopback that, on SIGTERM, either drains its in-flight requests (the
// default) or exits at once (-abrupt). With -exit it exits at once, for
// spawn timing; -code sets that exit status.
//
//	/ping        200 "pong"
//	/healthz     200 "ok"
//	/slow?ms=N   waits N ms (default 1000), then 200
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	abrupt := flag.Bool("abrupt", false, "exit at once on SIGTERM instead of draining")
	drain := flag.Duration("drain", 10*time.Second, "how long in-flight requests may finish")
	delay := flag.Duration("delay", 0, "wait this long before listening")
	exit := flag.Bool("exit", false, "exit at once")
	code := flag.Int("code", 0, "exit status with -exit")
	flag.Parse()
	if *exit {
		os.Exit(*code)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	time.Sleep(*delay)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	srv := &http.Server{Handler: mux(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "helper:", err)
		}
	}()
	fmt.Println("http", ln.Addr())
	<-ctx.Done()
	if *abrupt {
		os.Exit(3)
	}
	dctx, cancel := context.WithTimeout(context.Background(), *drain)
	defer cancel()
	if err := srv.Shutdown(dctx); err != nil {
		fmt.Fprintln(os.Stderr, "helper: drain cut short:", err)
		os.Exit(1)
	}
}

func mux() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("/ping", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("pong\n")) })
	m.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	m.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		ms, err := strconv.Atoi(r.URL.Query().Get("ms"))
		if err != nil {
			ms = 1000
		}
		time.Sleep(time.Duration(ms) * time.Millisecond)
		w.Write([]byte("slow\n"))
	})
	return m
}
