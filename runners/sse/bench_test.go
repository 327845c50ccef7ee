package sse

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/demo"
	"github.com/benchtui/benchtui/runners/plan"
)

// envBenchServe makes the test binary the benchmark's SSE server: the demo
// handler on that address, in a process of its own so that benchtui's RSS
// is measured alone.
const envBenchServe = "BENCHTUI_SSE_BENCH_SERVE"

func serveBenchChild(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr())
	_ = http.Serve(ln, demo.SSEHandler(1))
}

// BenchmarkSubscribers holds SSE_BENCH_SUBS subscribers (default 10000)
// against the demo SSE server (one event per subscriber per second) in a
// child process, and reports benchtui's own RSS growth per subscriber.
// SSE_BENCH_CLIENT=net/http measures the shared http.Transport instead of
// the lean client; SSE_BENCH_HEAP=FILE writes a heap profile of the held
// streams:
//
//	go test -run '^$' -bench Subscribers -benchtime 1x -timeout 10m ./runners/sse/
func BenchmarkSubscribers(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("SSE_BENCH_SUBS")); err == nil && v > 0 {
		n = v
	}
	addr := startBenchServer(b)
	for range b.N {
		holdSubscribers(b, addr, n)
	}
}

func startBenchServer(b *testing.B) string {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envBenchServe+"=127.0.0.1:0")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("reading the server's address: %v", err)
	}
	return strings.TrimSpace(line)
}

func holdSubscribers(b *testing.B, addr string, n int) {
	runtime.GC()
	before, heapBefore := rssKB(b), goMemKB()
	r, err := New(Spec{URL: "http://" + addr + "/events?rate=1", Ramp: "500/100ms",
		Timeout: plan.Duration{Duration: 30 * time.Second}})
	if err != nil {
		b.Fatal(err)
	}
	r.client.lean = os.Getenv("SSE_BENCH_CLIENT") != "net/http"
	h := &benchHost{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.drive(ctx, h, n) }()
	defer func() { cancel(); <-done; _ = r.Close() }()
	deadline := time.Now().Add(3 * time.Minute)
	for h.units.Load() < int64(n) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := h.units.Load(); got < int64(n) {
		b.Fatalf("only %d of %d subscribers connected (errors %d)", got, n, h.errors.Load())
	}
	time.Sleep(5 * time.Second) // events flow; buffers and stacks settle
	after, heapAfter := rssKB(b), goMemKB()
	if path := os.Getenv("SSE_BENCH_HEAP"); path != "" {
		writeHeapProfile(b, path)
	}
	b.ReportMetric(float64(n), "subscribers")
	b.ReportMetric(float64(after-before)/float64(n), "KB_RSS/sub")
	b.ReportMetric(float64(heapAfter-heapBefore)/float64(n), "KB_go/sub")
	b.ReportMetric(float64(h.events.Load()), "events")
	b.ReportMetric(float64(h.errors.Load()), "errors")
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.Logf("stack %d KB heap %d KB goroutines %d", m.StackInuse/1024, m.HeapInuse/1024, runtime.NumGoroutine())
	logMemoryClasses(b)
}

// rssKB is this process's resident set size.
func rssKB(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status:", err)
	}
	for line := range bytes.Lines(data) {
		if v, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"), 10, 64)
			return kb
		}
	}
	b.Skip("no VmRSS")
	return 0
}

// goMemKB is the Go runtime's heap and stack in use.
func goMemKB() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse+m.StackInuse) / 1024
}

// benchHost counts, as cheaply as the engine's recorder shards would.
type benchHost struct {
	g              runners.Gate
	units          atomic.Int64
	events, errors atomic.Int64
}

func (h *benchHost) recorder(int) recorder { return h }
func (h *benchHost) gate() *runners.Gate   { return &h.g }
func (h *benchHost) addInFlight(int)       {}
func (h *benchHost) setUnits(n int)        { h.units.Store(int64(n)) }

func (h *benchHost) Observe(_, _ time.Duration, kind string) {
	if kind != "" {
		h.errors.Add(1)
		return
	}
	h.events.Add(1)
}
func (h *benchHost) Extra(string, time.Duration) {}
func (h *benchHost) Record(due, sent, end time.Time, out runners.Outcome) {
	h.Observe(end.Sub(due), end.Sub(sent), out.Err)
}
func (h *benchHost) Count(string, int64) {}

// writeHeapProfile writes the heap held now (SSE_BENCH_HEAP=FILE, with
// -memprofilerate 512 for the small objects of each stream).
func writeHeapProfile(b *testing.B, path string) {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

// logMemoryClasses logs the runtime's memory by class (runtime/metrics
// /memory/classes/...), in KB: where RSS beyond the heap and stacks goes.
func logMemoryClasses(b *testing.B) {
	var samples []metrics.Sample
	for _, d := range metrics.All() {
		if strings.HasPrefix(d.Name, "/memory/classes/") {
			samples = append(samples, metrics.Sample{Name: d.Name})
		}
	}
	metrics.Read(samples)
	var line strings.Builder
	for _, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 && s.Value.Uint64() >= 1<<20 {
			fmt.Fprintf(&line, " %s=%d", strings.TrimPrefix(s.Name, "/memory/classes/"), s.Value.Uint64()>>10)
		}
	}
	b.Logf("memory classes (KB, those of 1 MB or more):%s", line.String())
}
