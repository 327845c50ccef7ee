package redisload

import (
	"bytes"
	"io"
	"net"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// hostileMarker, in a command, turns the hostile proxy against its
// connection.
const hostileMarker = "hostile"

// hostileProxy forwards connections to a real server until a client sends
// hostileMarker; from then on the server's replies are dropped (silent) or
// replaced by a bulk string announcing a gigabyte and sending junk.
type hostileProxy struct {
	ln       net.Listener
	upstream string
	huge     bool
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn
}

func startHostile(t *testing.T, upstream string, huge bool) *hostileProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &hostileProxy{ln: ln, upstream: upstream, huge: huge}
	p.wg.Go(p.accept)
	t.Cleanup(func() {
		_ = ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			_ = c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *hostileProxy) keep(c net.Conn) {
	p.mu.Lock()
	p.conns = append(p.conns, c)
	p.mu.Unlock()
}

func (p *hostileProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.upstream)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.keep(c)
		p.keep(up)
		turned := make(chan struct{})
		p.wg.Go(func() { p.requests(c, up, turned) })
		p.wg.Go(func() { p.replies(c, up, turned) })
	}
}

// requests forwards the client's commands, closing turned at the marker.
func (p *hostileProxy) requests(c, up net.Conn, turned chan struct{}) {
	defer up.Close()
	buf := make([]byte, 32<<10)
	once := sync.OnceFunc(func() { close(turned) })
	for {
		n, err := c.Read(buf)
		if n > 0 && bytes.Contains(buf[:n], []byte(hostileMarker)) {
			once()
		}
		if n > 0 {
			if _, werr := up.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// replies forwards the server's replies until turned, then misbehaves.
func (p *hostileProxy) replies(c, up net.Conn, turned chan struct{}) {
	defer c.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := up.Read(buf)
		select {
		case <-turned:
			if p.huge {
				p.flood(c)
				return
			}
			_, _ = io.Copy(io.Discard, up) // silent from now on
			return
		default:
		}
		if n > 0 {
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// flood announces a 1 GiB bulk string and sends up to 256 MiB of it.
func (p *hostileProxy) flood(c net.Conn) {
	if _, err := c.Write([]byte("$1073741824\r\n")); err != nil {
		return
	}
	junk := bytes.Repeat([]byte{'x'}, 64<<10)
	for range 4096 {
		if _, err := c.Write(junk); err != nil {
			return
		}
	}
}

// runHostile runs a 1 s step of GET hostile (timeout 300 ms) through the
// proxy and returns its error kinds, how long it took and how much the
// process allocated meanwhile.
func runHostile(t *testing.T, huge bool) (map[string]int64, int64, time.Duration, uint64) {
	e := startServer(t)
	p := startHostile(t, e.Addr(), huge)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: hostile
    runner: redis
    redis:
      addr: ${ADDR}
      max_reply_bytes: 1048576
      commands: [{name: probe, cmd: [GET, hostile]}]
    load: {concurrency: 2, timeout: 300ms}
    duration: 1s
`, map[string]string{"ADDR": p.ln.Addr().String()})
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	st := a.Steps[0]
	return st.ErrorKinds, st.Requests, took, after.TotalAlloc - before.TotalAlloc
}

// TestSilentServerTimesOut: a server that stops answering makes every
// operation a timeout (or a closed connection), and the step ends on time.
func TestSilentServerTimesOut(t *testing.T) {
	kinds, requests, took, _ := runHostile(t, false)
	t.Logf("%d requests, kinds %v, took %v", requests, kinds, took)
	if requests == 0 || kinds[KindTimeout] == 0 {
		t.Fatalf("%d requests, kinds %v; want timeouts", requests, kinds)
	}
	for k, n := range kinds {
		if !slices.Contains([]string{KindTimeout, KindClosed}, k) {
			t.Errorf("%d errors of kind %s; want timeout or closed only", n, k)
		}
	}
	if took > 15*time.Second {
		t.Errorf("the 1 s step took %v", took)
	}
}

// TestHugeReplyRefused: a server announcing a 1 GiB bulk string loses its
// connection before the client makes room for it: reply_too_large, and
// each refusal allocates far less than one such reply. Each refusal costs
// a new connection (rueidis's two 0.5 MiB buffers), so the bound is per
// operation: a fast machine refuses more replies in its 1 s step (CI once
// refused 380 and allocated 287 MiB in all, 0.76 MiB each).
func TestHugeReplyRefused(t *testing.T) {
	kinds, requests, took, alloc := runHostile(t, true)
	t.Logf("%d requests, kinds %v, took %v, allocated %d MiB", requests, kinds, took, alloc>>20)
	if requests == 0 || kinds[KindTooLarge] == 0 {
		t.Fatalf("%d requests, kinds %v; want reply_too_large", requests, kinds)
	}
	for k, n := range kinds {
		if !slices.Contains([]string{KindTooLarge, KindClosed, KindTimeout}, k) {
			t.Errorf("%d errors of kind %s; want reply_too_large (or closed, timeout)", n, k)
		}
	}
	if perOp := alloc / uint64(requests); perOp > 8<<20 {
		t.Errorf("allocated %d KiB per operation while refusing 1 GiB replies", perOp>>10)
	}
	if took > 15*time.Second {
		t.Errorf("the 1 s step took %v", took)
	}
}
