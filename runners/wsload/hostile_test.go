package wsload

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1" //nolint:gosec // the WebSocket handshake's accept key
	"encoding/base64"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// hostile is a server that completes the WebSocket handshake by hand and
// then misbehaves at the client's first message, as its path says:
//
//   - /huge announces a 1 GiB binary frame and sends up to 256 MiB of it;
//   - /silent never answers (it reads and drops what comes);
//   - /midclose announces a 1000-byte frame, sends 10 bytes and closes;
//   - /mute accepts the connection and never answers the handshake.
type hostile struct {
	srv   *httptest.Server
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

func startHostile(t *testing.T) *hostile {
	h := &hostile{}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(func() {
		h.mu.Lock()
		for _, c := range h.conns {
			_ = c.Close()
		}
		h.mu.Unlock()
		h.srv.Close()
		h.wg.Wait()
	})
	return h
}

func (h *hostile) url(path string) string { return "ws://" + h.srv.Listener.Addr().String() + path }

func (h *hostile) serve(w http.ResponseWriter, r *http.Request) {
	c, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	h.mu.Lock()
	h.conns = append(h.conns, c)
	h.mu.Unlock()
	h.wg.Add(1)
	defer h.wg.Done()
	defer c.Close()
	if r.URL.Path == "/mute" {
		_, _ = io.Copy(io.Discard, rw)
		return
	}
	sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")) //nolint:gosec // the protocol's
	_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
		base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n")
	if rw.Flush() != nil || readFrame(rw.Reader) != nil {
		return
	}
	switch r.URL.Path {
	case "/huge":
		flood(c)
	case "/silent":
		_, _ = io.Copy(io.Discard, rw)
	case "/midclose":
		_, _ = c.Write(append(frameHeader(1000), bytes.Repeat([]byte{'x'}, 10)...))
	}
}

// frameHeader is an unmasked final binary frame's header for n bytes.
func frameHeader(n uint64) []byte {
	if n < 126 {
		return []byte{0x82, byte(n)}
	}
	if n <= 0xffff {
		return binary.BigEndian.AppendUint16([]byte{0x82, 126}, uint16(n))
	}
	return binary.BigEndian.AppendUint64([]byte{0x82, 127}, n)
}

// readFrame reads one masked client frame (of up to 64 KiB).
func readFrame(br *bufio.Reader) error {
	var hd [2]byte
	if _, err := io.ReadFull(br, hd[:]); err != nil {
		return err
	}
	n := int(hd[1] & 0x7f)
	if n == 126 {
		var ext [2]byte
		if _, err := io.ReadFull(br, ext[:]); err != nil {
			return err
		}
		n = int(binary.BigEndian.Uint16(ext[:]))
	}
	_, err := io.CopyN(io.Discard, br, int64(n)+4) // the mask and payload
	return err
}

// flood announces a 1 GiB frame and sends up to 256 MiB of it.
func flood(c net.Conn) {
	if _, err := c.Write(frameHeader(1 << 30)); err != nil {
		return
	}
	junk := bytes.Repeat([]byte{'x'}, 64<<10)
	for range 4096 {
		if _, err := c.Write(junk); err != nil {
			return
		}
	}
}

// runHostile runs a 1 s step of 2 workers (messages of at most 64 KiB,
// timeout as given) against path and returns its error kinds, requests,
// how long it took and how much the process allocated meanwhile.
func runHostile(t *testing.T, path, timeout string) (map[string]int64, int64, time.Duration, uint64) {
	h := startHostile(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: hostile
    runner: websocket
    websocket:
      url: ${URL}
      max_message_bytes: 65536
      messages: [{name: probe, text: hostile}]
    load: {concurrency: 2, timeout: "${TIMEOUT}"}
    duration: 1s
`, map[string]string{"URL": h.url(path), "TIMEOUT": timeout})
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	st := a.Steps[0]
	t.Logf("%s: %d requests, kinds %v, took %v, allocated %d KiB", path, st.Requests, st.ErrorKinds, took, (after.TotalAlloc-before.TotalAlloc)>>10)
	if st.Requests == 0 || st.Errors != st.Requests {
		t.Errorf("%d requests, %d errors; want every one failed", st.Requests, st.Errors)
	}
	if took > 10*time.Second {
		t.Errorf("the 1 s step took %v", took)
	}
	return st.ErrorKinds, st.Requests, took, after.TotalAlloc - before.TotalAlloc
}

// wantKinds fails t for a kind outside want, or none of want[0].
func wantKinds(t *testing.T, kinds map[string]int64, want ...string) {
	t.Helper()
	if kinds[want[0]] == 0 {
		t.Errorf("kinds %v: no %s", kinds, want[0])
	}
	for k, n := range kinds {
		if !slices.Contains(want, k) && k != "canceled" {
			t.Errorf("%d errors of kind %s; want %v", n, k, want)
		}
	}
}

// TestHugeFrameRefused: a frame announcing 1 GiB closes its connection
// once max_message_bytes are read (message_too_large), each refusal
// allocating about one such message, not the frame.
func TestHugeFrameRefused(t *testing.T) {
	kinds, requests, _, alloc := runHostile(t, "/huge", "5s")
	wantKinds(t, kinds, KindTooLarge)
	if perOp := alloc / uint64(requests); perOp > 2<<20 {
		t.Errorf("allocated %d KiB per operation while refusing 1 GiB frames", perOp>>10)
	}
}

// TestSilentServerTimesOut: a server that never replies makes every
// operation a timeout, and the step ends on time.
func TestSilentServerTimesOut(t *testing.T) {
	kinds, _, _, _ := runHostile(t, "/silent", "300ms")
	wantKinds(t, kinds, KindTimeout)
}

// TestCloseMidMessage: a connection closed inside a frame is an error of
// kind closed.
func TestCloseMidMessage(t *testing.T) {
	kinds, _, _, _ := runHostile(t, "/midclose", "5s")
	wantKinds(t, kinds, KindClosed, KindReset)
}

// TestMuteHandshakeTimesOut: a server that accepts and never answers the
// handshake makes each connect a timeout.
func TestMuteHandshakeTimesOut(t *testing.T) {
	kinds, _, _, _ := runHostile(t, "/mute", "300ms")
	wantKinds(t, kinds, KindTimeout)
}

// TestSubscriberRefusesHugeFrame: subscribers of a server that floods a
// 1 GiB frame each lose their connection as message_too_large, a
// disconnect each, and the drive ends once all are gone (no reconnect).
func TestSubscriberRefusesHugeFrame(t *testing.T) {
	h := startHostile(t)
	r, env := newDriven(t, `
version: 1
groups:
  - id: flood
    runner: websocket
    websocket:
      url: ${URL}
      max_message_bytes: 65536
      subscribe: {subscribers: 3, send: [join]}
    duration: 10s
`, map[string]string{"URL": h.url("/huge")})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	runnertest.DriveStep(t, ctx, r, env)
	counts, kinds, requests := stepCounts(env)
	t.Logf("counters %v, kinds %v, requests %d, took %v", counts, kinds, requests, time.Since(start))
	if kinds[KindTooLarge] != 3 || requests != 3 || counts[CounterDisconnects] != 3 || counts[CounterMessagesIn] != 0 {
		t.Errorf("kinds %v, requests %d, counters %v; want 3 message_too_large losses", kinds, requests, counts)
	}
	if ctx.Err() != nil {
		t.Errorf("the drive lasted until its context ended: the subscribers did not end")
	}
}
