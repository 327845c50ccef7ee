// Command helper is the test server of package spawn: an HTTP server on
// loopback that, on SIGTERM, either drains its in-flight requests (the
// default; its /events streams end properly) or exits at once (-abrupt). With -exit it exits at once, for
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
	ending := make(chan struct{})
	srv := &http.Server{Handler: mux(ending), ReadHeaderTimeout: 5 * time.Second}
	srv.RegisterOnShutdown(func() { close(ending) }) // a drain ends the event streams
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

func mux(ending <-chan struct{}) *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for id := 1; ; id++ {
			fmt.Fprintf(w, "id: %d\ndata: {\"ts\": %d}\n\n", id, time.Now().UnixMilli())
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-ending:
				return // the response ends properly
			case <-tick.C:
			}
		}
	})
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
