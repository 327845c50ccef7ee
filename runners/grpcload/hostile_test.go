package grpcload

import (
	"context"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
)

// hostile serves handler as a gRPC server would be reached, over
// cleartext HTTP/2 on loopback, counting the calls it took; it is closed
// at cleanup.
func hostile(t *testing.T, handler http.HandlerFunc) (string, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	srv := &http.Server{Protocols: &protocols, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		handler(w, r)
	}), ConnContext: func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		srv.Close()
		<-done
	})
	return ln.Addr().String(), &calls
}

// connKey is where a hostile handler finds its connection.
type connKey struct{}

// grpcHeaders starts a gRPC reply.
func grpcHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/grpc")
	w.WriteHeader(http.StatusOK)
}

// hostilePlan calls Ticks (a server stream) or Echo on addr, its
// descriptors from the stand-in's .proto file. Where the test is not of
// the deadline, it is long: what is tested must come first.
const hostilePlan = `
version: 1
groups:
  - id: hostile
    runner: grpc
    grpc:
      target: ${ADDR}
      proto: protos/benchtui/bench.proto
      method: ${METHOD}
      max_recv_bytes: 65536
    load: {concurrency: "${CONC}", timeout: "${TIMEOUT}"}
    iterations: ${N}
    max_duration: 60s
`

// runHostile runs hostilePlan against addr, 4 calls at a time, and
// returns its step and how long it took.
func runHostile(t *testing.T, addr, method, n, timeout string) (artifacts.Step, time.Duration) {
	t.Helper()
	return runHostileAt(t, addr, method, n, timeout, "4")
}

func runHostileAt(t *testing.T, addr, method, n, timeout, conc string) (artifacts.Step, time.Duration) {
	t.Helper()
	start := time.Now()
	a := runIn(t, planDir(t), hostilePlan, map[string]string{"ADDR": addr, "METHOD": method, "N": n, "TIMEOUT": timeout, "CONC": conc})
	return a.Steps[0], time.Since(start)
}

// TestHugeReplyRefusedUnread: replies announcing a GiB, over
// max_recv_bytes, fail as reply_too_large at once, and the runner
// allocates nowhere near what they announced.
func TestHugeReplyRefusedUnread(t *testing.T) {
	addr, calls := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		grpcHeaders(w)
		w.Write([]byte{0, 0x40, 0, 0, 0}) // a message of 1 GiB follows
		w.Write(make([]byte, 32<<10))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	st, took := runHostile(t, addr, "benchtui.demo.Bench/Echo", "200", "5s")
	runtime.ReadMemStats(&after)
	if st.Requests != 200 || st.ErrorKinds[KindTooLarge] != 200 || calls.Load() != 200 {
		t.Fatalf("requests %d, kinds %v, samples %v; server calls %d; latency %+v", st.Requests, st.ErrorKinds, st.ErrorSamples, calls.Load(), st.LatencyMS)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200<<20 {
		t.Errorf("allocated %d MiB for 200 refused replies of 1 GiB each", alloc>>20)
	}
	if took > 10*time.Second {
		t.Errorf("took %s", took)
	}
	t.Logf("200 refused replies in %s, %d MiB allocated in all", took, (after.TotalAlloc-before.TotalAlloc)>>20)
}

// TestSilentServerTimesOut: a server that never answers costs each call
// its deadline (load.timeout), no more, as a timeout.
func TestSilentServerTimesOut(t *testing.T) {
	addr, calls := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	st, took := runHostile(t, addr, "benchtui.demo.Bench/Echo", "20", "300ms")
	// A call whose deadline passes before the server has taken it never
	// reaches the handler (19 of 20 beside a busy suite): each is still a
	// request and a timeout.
	if st.Requests != 20 || st.ErrorKinds[KindTimeout] != 20 || calls.Load() > 20 || calls.Load() == 0 {
		t.Fatalf("requests %d, kinds %v; server calls %d", st.Requests, st.ErrorKinds, calls.Load())
	}
	// 20 calls of 300 ms, 4 at a time: 1.5 s; generous room for a loaded machine.
	if took > 8*time.Second || st.LatencyMS.Max > 3000 {
		t.Errorf("took %s, max latency %.0f ms, for calls with a 300 ms deadline", took, st.LatencyMS.Max)
	}
}

// TestStreamCutMidMessage: a server stream cut in the middle of its
// second message (RST_STREAM) fails with the status grpc-go gives it,
// grpc_internal; the first message was counted.
func TestStreamCutMidMessage(t *testing.T) {
	addr, _ := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		grpcHeaders(w)
		w.Write([]byte{0, 0, 0, 0, 2, 0x08, 0x01}) // Tick{i: 1}
		w.Write([]byte{0, 0, 0, 0, 100, 0x08})     // a message of 100 bytes, cut
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	})
	st, took := runHostile(t, addr, "benchtui.demo.Bench/Ticks", "40", "5s")
	if st.Requests != 40 || st.ErrorKinds["grpc_internal"] != 40 {
		t.Fatalf("requests %d, kinds %v, samples %v", st.Requests, st.ErrorKinds, st.ErrorSamples)
	}
	if got := st.Counters[CounterReceived]; got != 40 {
		t.Errorf("received %d messages, want the 40 whole ones", got)
	}
	if took > 10*time.Second {
		t.Errorf("took %s", took)
	}
}

// TestConnectionClosedMidStream: a server that closes the whole
// connection in the middle of a stream's second message fails each call
// as grpc_unavailable, after its first message; the runner connects
// again for the next call. One call at a time: a close cuts every call
// on the connection, some before their first message.
func TestConnectionClosedMidStream(t *testing.T) {
	addr, calls := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		grpcHeaders(w)
		w.Write([]byte{0, 0, 0, 0, 2, 0x08, 0x01, 0, 0, 0, 0, 100, 0x08})
		w.(http.Flusher).Flush()
		// the bytes reach the client first: 10 ms were too few beside
		// two burners (19 of the 20 whole messages received)
		time.Sleep(100 * time.Millisecond)
		r.Context().Value(connKey{}).(net.Conn).Close()
	})
	st, took := runHostileAt(t, addr, "benchtui.demo.Bench/Ticks", "20", "5s", "1")
	if st.Requests != 20 || st.ErrorKinds["grpc_unavailable"] != 20 || calls.Load() != 20 {
		t.Fatalf("requests %d, kinds %v, samples %v; server calls %d", st.Requests, st.ErrorKinds, st.ErrorSamples, calls.Load())
	}
	if got := st.Counters[CounterReceived]; got != 20 {
		t.Errorf("received %d messages, want the 20 whole ones", got)
	}
	if took > 10*time.Second {
		t.Errorf("took %s", took)
	}
}
