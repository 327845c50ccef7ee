//go:build linux

package httpload

import (
	"fmt"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// BenchmarkEpollLoopback runs client: epoll (closed loop, 8 connections,
// and pipelined 8 deep on 2) for 1 s per iteration against a loopback
// server that allocates nothing per request, and reports the client's
// requests per second, the process's CPU per request (the server's
// included) and its allocations per request (the engine's per step
// amortised).
func BenchmarkEpollLoopback(b *testing.B) {
	addr := cannedServer(b)
	for _, c := range []struct{ name, keys, load string }{
		{"closed", "", "{concurrency: 8}"},
		{"pipeline", ", pipeline: 8", "{concurrency: 2}"},
	} {
		b.Run(c.name, func(b *testing.B) {
			yaml := fmt.Sprintf("version: 1\ngroups:\n  - id: b\n    runner: http\n    http: {client: epoll, requests: [{url: \"http://%s/x\"}]%s}\n    load: %s\n    duration: 1s\n",
				addr, c.keys, c.load)
			var reqs int64
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			cpu0 := cpuTime()
			b.ResetTimer()
			for range b.N {
				a := runnertest.RunPlan(b, testRegistry, yaml, nil)
				if st := a.Steps[0]; st.Errors != 0 {
					b.Fatalf("%d errors: %v", st.Errors, st.ErrorKinds)
				}
				reqs += a.Steps[0].Requests
			}
			b.StopTimer()
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(reqs)/b.Elapsed().Seconds(), "req/s")
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(reqs), "cpu-ns/req")
			b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(reqs), "allocs/req")
		})
	}
}

// cannedServer is a loopback HTTP/1.1 server that answers every request
// head (a GET: no body) with the same short reply, allocating nothing
// per request.
func cannedServer(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	reply := []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serveCanned(conn, reply)
		}
	}()
	return ln.Addr().String()
}

// serveCanned answers each "\r\n\r\n" read on conn with reply, the
// replies to one read in one write.
func serveCanned(conn net.Conn, reply []byte) {
	defer conn.Close()
	end := []byte("\r\n\r\n")
	buf := make([]byte, 64<<10)
	out := make([]byte, 0, 64*len(reply))
	matched := 0 // bytes of end matched so far, across reads
	for {
		n, err := conn.Read(buf)
		if err != nil {
			return
		}
		out = out[:0]
		for _, c := range buf[:n] {
			switch {
			case c == end[matched]:
				matched++
			case c == end[0]:
				matched = 1
			default:
				matched = 0
			}
			if matched == len(end) {
				matched = 0
				out = append(out, reply...)
			}
		}
		if len(out) > 0 && !writeAll(conn, out) {
			return
		}
	}
}

func writeAll(conn net.Conn, p []byte) bool {
	_, err := conn.Write(p)
	return err == nil
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
