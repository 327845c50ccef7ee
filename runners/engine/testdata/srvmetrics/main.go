// Command srvmetrics is a test helper of package engine: a server with its
// own /metrics page (go_memstats_heap_inuse_bytes, hand-written in the
// text exposition format), net/http/pprof's /debug/pprof/heap, a heap that
// grows by -leak-kb every -every, and /log?n=N&text=T, which writes T on N
// lines of stderr before it answers.
package main

import (
	"flag"
	"fmt"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
)

var (
	mu       sync.Mutex
	retained [][]byte
)

func main() {
	addr := flag.String("http", "127.0.0.1:0", "address to serve on")
	leakKB := flag.Int("leak-kb", 0, "KiB to allocate, touch and retain every -every")
	every := flag.Duration("every", 100*time.Millisecond, "leak period")
	startWarns := flag.Int("start-warns", 0, "WARN lines written at start, before serving")
	flag.Parse()
	for i := 0; i < *startWarns; i++ {
		fmt.Fprintf(os.Stderr, "WARN at start %d\n", i)
	}
	if *leakKB > 0 {
		go leak(*leakKB, *every)
	}
	http.HandleFunc("/metrics", metrics)
	http.HandleFunc("/log", logLines)
	fmt.Println("serving")
	if err := http.ListenAndServe(*addr, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func leak(kb int, every time.Duration) {
	for range time.Tick(every) {
		b := make([]byte, kb<<10)
		for i := range b {
			b[i] = byte(i)
		}
		mu.Lock()
		retained = append(retained, b)
		mu.Unlock()
	}
}

func metrics(w http.ResponseWriter, _ *http.Request) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprintf(w, "# HELP go_memstats_heap_inuse_bytes Bytes in in-use spans.\n# TYPE go_memstats_heap_inuse_bytes gauge\ngo_memstats_heap_inuse_bytes %d\n", m.HeapInuse)
	fmt.Fprintf(w, "# TYPE go_gc_cycles_total counter\ngo_gc_cycles_total %d\n", m.NumGC)
}

func logLines(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	text := r.URL.Query().Get("text")
	for i := 0; i < n; i++ {
		fmt.Fprintf(os.Stderr, "%s line %d\n", text, i)
	}
	fmt.Fprintf(w, "wrote %d\n", n)
}
