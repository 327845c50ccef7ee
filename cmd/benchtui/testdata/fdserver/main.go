// Command fdserver is a tiny HTTP server for tests: with -leak it opens
// /dev/null on every /ping and never closes it, leaking an fd per request.
package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"sync"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	leak := flag.Bool("leak", false, "leak an fd per request")
	flag.Parse()
	var mu sync.Mutex
	var leaked []*os.File
	m := http.NewServeMux()
	m.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	m.HandleFunc("/ping", func(w http.ResponseWriter, _ *http.Request) {
		if *leak {
			f, err := os.Open(os.DevNull)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			mu.Lock()
			leaked = append(leaked, f)
			mu.Unlock()
		}
		w.Write([]byte("pong\n"))
	})
	log.Fatal(http.ListenAndServe(*addr, m))
}
