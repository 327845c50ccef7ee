package wsload

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/benchtui/benchtui/runners"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testRegistry knows the websocket kind only.
var testRegistry = runners.MustRegistry(Kind())

// server is a real WebSocket server (coder/websocket's Accept) on
// loopback that counts what it served, the tests' ground truth:
//
//   - /echo answers each message with ?noise=K messages "noise" and then
//     the message itself, of its type;
//   - /broadcast holds each connection once it sent its first message (a
//     subscription) until the client leaves; broadcast sends to all held;
//   - /drop sends ?after=K messages, then closes with ?code=C.
type server struct {
	srv                      *httptest.Server
	handlers                 sync.WaitGroup
	accepted, received, sent atomic.Int64
	bytesIn, bytesOut        atomic.Int64
	mu                       sync.Mutex
	conns                    map[*websocket.Conn]bool // every open one: true when subscribed
	texts                    []string                 // the texts received, when keep
	headers                  []http.Header
	protos                   []string
	from                     map[string]int // connections by the client's address
	keep                     bool
}

func startServer(t *testing.T) *server {
	s := &server{conns: map[*websocket.Conn]bool{}, from: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", s.serve(s.echo))
	mux.HandleFunc("/broadcast", s.serve(s.subscriber))
	mux.HandleFunc("/drop", s.serve(s.drop))
	s.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		s.mu.Lock()
		for c := range s.conns {
			_ = c.CloseNow()
		}
		s.mu.Unlock()
		s.srv.Close()
		s.handlers.Wait()
	})
	return s
}

// url is the server's ws:// URL of path.
func (s *server) url(path string) string { return "ws://" + s.srv.Listener.Addr().String() + path }

// serve accepts a connection (offering the subprotocols chat and feed)
// and runs h on it until h returns.
func (s *server) serve(h func(r *http.Request, c *websocket.Conn)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"chat", "feed"}})
		if err != nil {
			return
		}
		s.handlers.Add(1)
		defer s.handlers.Done()
		c.SetReadLimit(1 << 20)
		s.accepted.Add(1)
		s.mu.Lock()
		s.conns[c] = false
		s.headers = append(s.headers, r.Header.Clone())
		s.protos = append(s.protos, c.Subprotocol())
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		s.from[host]++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			_ = c.CloseNow()
		}()
		h(r, c)
	}
}

// read reads one message, counting it.
func (s *server) read(c *websocket.Conn) (websocket.MessageType, []byte, error) {
	typ, b, err := c.Read(context.Background())
	if err != nil {
		return typ, b, err
	}
	s.received.Add(1)
	s.bytesIn.Add(int64(len(b)))
	if s.keep && typ == websocket.MessageText {
		s.mu.Lock()
		s.texts = append(s.texts, string(b))
		s.mu.Unlock()
	}
	return typ, b, nil
}

// write sends one message, counting it once sent.
func (s *server) write(c *websocket.Conn, typ websocket.MessageType, b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Write(ctx, typ, b); err != nil {
		return err
	}
	s.sent.Add(1)
	s.bytesOut.Add(int64(len(b)))
	return nil
}

func (s *server) echo(r *http.Request, c *websocket.Conn) {
	noise, _ := strconv.Atoi(r.URL.Query().Get("noise"))
	for {
		typ, b, err := s.read(c)
		if err != nil {
			return
		}
		for range noise {
			if s.write(c, websocket.MessageText, []byte("noise")) != nil {
				return
			}
		}
		if s.write(c, typ, b) != nil {
			return
		}
	}
}

func (s *server) subscriber(_ *http.Request, c *websocket.Conn) {
	if _, _, err := s.read(c); err != nil {
		return
	}
	s.mu.Lock()
	s.conns[c] = true
	s.mu.Unlock()
	for {
		if _, _, err := s.read(c); err != nil {
			return
		}
	}
}

// subscribed is how many connections are subscribed.
func (s *server) subscribed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, on := range s.conns {
		if on {
			n++
		}
	}
	return n
}

// broadcast sends text to every subscribed connection and returns how
// many it reached.
func (s *server) broadcast(text string) int64 {
	s.mu.Lock()
	var subs []*websocket.Conn
	for c, on := range s.conns {
		if on {
			subs = append(subs, c)
		}
	}
	s.mu.Unlock()
	n := int64(0)
	for _, c := range subs {
		if s.write(c, websocket.MessageText, []byte(text)) == nil {
			n++
		}
	}
	return n
}

func (s *server) drop(r *http.Request, c *websocket.Conn) {
	after, _ := strconv.Atoi(r.URL.Query().Get("after"))
	code, _ := strconv.Atoi(r.URL.Query().Get("code"))
	for i := range after {
		if s.write(c, websocket.MessageText, []byte("m"+strconv.Itoa(i))) != nil {
			return
		}
	}
	_ = c.Close(websocket.StatusCode(code), "dropped")
}

// header is the values of a request header the server saw, in order.
func (s *server) header(name string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, h := range s.headers {
		out = append(out, h.Get(name))
	}
	return out
}

// received texts with a prefix.
func (s *server) textsWith(prefix string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, m := range s.texts {
		if strings.HasPrefix(m, prefix) {
			out = append(out, m)
		}
	}
	return out
}

// waitFor polls cond every 5 ms for up to limit.
func waitFor(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
