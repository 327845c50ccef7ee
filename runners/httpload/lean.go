package httpload

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// The lean client is a plain HTTP/1.1 keep-alive client for http:// URLs:
// each worker owns one connection and writes requests serialized once at
// start. It exists because net/http's client spends most of a load
// generator's CPU on things a benchmark does not need (a pooled transport
// with its goroutines, header maps, context plumbing); fortio's own client
// shows Go can match wrk this way. HTTPS, HTTP/2, h2c and proxies stay with
// net/http.

// leanRequest is a request serialized for the wire.
type leanRequest struct {
	addr   string        // host:port to dial
	wire   []byte        // nil when tpl renders it per request
	tpl    *leanTemplate // nil without templates
	expect []int
	head   bool
}

// leanEligible reports whether every request of spec can go the lean way.
func leanEligible(s *Spec) bool {
	if s.Protocol != "" && s.Protocol != "http1" {
		return false
	}
	reqs, _ := s.sent()
	for _, r := range reqs {
		u, err := url.Parse(tmpl.Skeleton(r.URL))
		if err != nil || u.Scheme != "http" || u.User != nil {
			return false
		}
	}
	return true
}

// serialize writes r for the wire once; a templated r (t not nil) keeps
// its static parts and is rendered per request (leanTemplate.render).
func serialize(r *Request, t *reqTemplate, keepAlive bool) (leanRequest, error) {
	u, err := url.Parse(tmpl.Skeleton(r.URL))
	if err != nil {
		return leanRequest{}, fmt.Errorf("parsing %s: %w", plan.RedactURLs(r.URL), err)
	}
	// The plan was validated; this client writes the wire itself, so it
	// checks again rather than trust every caller to have validated.
	if p := plan.RequestProblems(r.Method, tmpl.Skeletons(r.Headers)); len(p) > 0 {
		return leanRequest{}, errors.New(strings.Join(p, "; "))
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	lr := leanRequest{addr: addr, expect: r.ExpectStatus, head: method(r) == "HEAD"}
	if t != nil {
		lr.tpl = &leanTemplate{t: t, method: method(r), host: hostLines(u.Host), length: hasLength(r), close: !keepAlive}
		return lr, nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s%s", method(r), u.RequestURI(), hostLines(u.Host))
	for k, v := range r.Headers {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	if hasLength(r) {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(r.Body))
	}
	if !keepAlive {
		b.WriteString(connectionClose)
	}
	b.WriteString("\r\n")
	b.WriteString(r.Body)
	lr.wire = b.Bytes()
	return lr, nil
}

// hostLines ends the request line and starts the headers.
func hostLines(host string) string {
	return " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: benchtui\r\n"
}

const connectionClose = "Connection: close\r\n"

// hasLength reports whether r's wire form carries a Content-Length.
func hasLength(r *Request) bool {
	m := method(r)
	return r.Body != "" || m == "POST" || m == "PUT" || m == "PATCH"
}

// leanConn is one worker's connection.
type leanConn struct {
	addr    string
	conn    net.Conn
	wire    *wire
	br      *bufio.Reader
	timeout time.Duration
	dialer  net.Dialer
	// deadlineAt is when the connection's deadline was last moved; it is
	// moved again only after a tenth of the timeout, since moving it costs
	// as much as a small request. A request may so run up to 10% over.
	deadlineAt time.Time

	// live is the connection an aborted context unblocks; watched and
	// unwatch are the AfterFunc registered on the step's context, once per
	// context rather than once per request.
	live    atomic.Pointer[net.Conn]
	watched context.Context
	unwatch func() bool
}

func (c *leanConn) close() {
	if c.conn != nil {
		c.live.Store(nil)
		c.conn.Close()
		c.conn, c.wire, c.br = nil, nil, nil
	}
}

// watch makes a cancellation of ctx (the step's grace period is over)
// unblock the connection at once instead of at its deadline.
func (c *leanConn) watch(ctx context.Context) {
	if ctx == c.watched {
		return
	}
	if c.unwatch != nil {
		c.unwatch()
	}
	c.watched = ctx
	c.unwatch = context.AfterFunc(ctx, func() {
		if conn := c.live.Load(); conn != nil {
			(*conn).SetDeadline(time.Unix(1, 0))
		}
	})
}

// stop releases the context watch.
func (c *leanConn) stop() {
	if c.unwatch != nil {
		c.unwatch()
	}
	c.close()
}

// roundTrip sends req and reads the reply; it returns the status code.
// A connection that the server closed between requests is retried once on
// a new one, as net/http does for idempotent requests.
// The reply's body is discarded, or read into sink when it is not nil.
func (c *leanConn) roundTrip(ctx context.Context, req *leanRequest, sink *replySink) (int, error) {
	reused := c.conn != nil && c.addr == req.addr
	code, err := c.try(ctx, req, sink)
	if err != nil && reused && (errors.Is(err, io.EOF) || isReset(err)) {
		sink.reset()
		return c.try(ctx, req, sink)
	}
	return code, err
}

func (c *leanConn) try(ctx context.Context, req *leanRequest, sink *replySink) (int, error) {
	c.watch(ctx)
	if c.conn == nil || c.addr != req.addr {
		c.close()
		conn, err := runners.Dial(ctx, &c.dialer, "tcp", req.addr)
		if err != nil {
			return 0, err
		}
		c.conn, c.addr = conn, req.addr
		c.wire = newWire(conn)
		c.br = bufio.NewReaderSize(c.wire, 16<<10)
		c.deadlineAt = time.Time{}
		c.live.Store(&conn) // a copy: the watcher never reads c.conn
		if ctx.Err() != nil {
			c.close()
			return 0, ctx.Err()
		}
	}
	if now := time.Now(); now.Sub(c.deadlineAt) > c.timeout/10 {
		c.conn.SetDeadline(now.Add(c.timeout))
		c.deadlineAt = now
	}
	if err := c.send(req.wire); err != nil {
		c.close()
		return 0, err
	}
	code, keep, err := readResponse(c.br, req.head, sink)
	if err != nil || !keep {
		c.close()
	}
	return code, err
}

// send writes a request, or queues it for the read of its reply
// (wire.send): queued only when nothing is buffered, since the reply's
// read must then reach the socket.
func (c *leanConn) send(b []byte) error {
	if c.br.Buffered() > 0 {
		_, err := c.conn.Write(b)
		return err
	}
	return c.wire.send(b)
}

// readResponse reads one response and discards its body, or reads into
// sink what its captures need. keep is false when the server will close
// the connection.
func readResponse(br *bufio.Reader, head bool, sink *replySink) (code int, keep bool, err error) {
	f, err := readFinalHead(br, sink)
	if err != nil {
		return f.code, false, err
	}
	if f.bodyless(head) {
		return f.code, f.keep, nil
	}
	f.delimit()
	if sink.wantsBody() {
		return f.code, f.keep, sink.readBody(br, f.length, f.chunked)
	}
	return f.code, f.keep, discardBody(br, f.length, f.chunked)
}

// readFinalHead reads the head of a request's final reply, skipping the
// informational ones before it (framing.interim), whose fields the sink
// never sees; at most maxInterim of them.
func readFinalHead(br *bufio.Reader, sink *replySink) (framing, error) {
	for n := 0; ; n++ {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return framing{}, err
		}
		f, err := parseStatus(line)
		if err != nil {
			return framing{}, err
		}
		to := sink
		if f.interim() {
			to = nil
		}
		if err := readFields(br, &f, to); err != nil || !f.interim() {
			return f, err
		}
		if n == maxInterim {
			return f, errTooManyInterim
		}
	}
}

// readFields reads a head's fields into f, up to its empty line.
func readFields(br *bufio.Reader, f *framing, sink *replySink) error {
	for {
		h, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(h) <= 2 {
			return nil
		}
		if err := f.field(h, sink); err != nil {
			return err
		}
	}
}

func discardBody(br *bufio.Reader, length int64, chunked bool) error {
	switch {
	case chunked:
		return readChunked(br, nil)
	case length >= 0:
		_, err := br.Discard(int(length))
		return err
	}
	_, err := io.Copy(io.Discard, br) // until the server closes
	return err
}

// readChunked reads a chunked body, writing its data to keep (nil:
// discarding it).
func readChunked(br *bufio.Reader, keep io.Writer) error {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		size, err := chunkSize(line)
		if err != nil {
			return err
		}
		if size == 0 {
			for { // trailers, up to the empty line
				t, err := br.ReadSlice('\n')
				if err != nil || len(t) <= 2 {
					return err
				}
			}
		}
		if keep != nil {
			if _, err := io.CopyN(keep, br, size); err != nil {
				return err
			}
			size = 0
		}
		if _, err := br.Discard(int(size) + 2); err != nil {
			return err
		}
	}
}

func asciiEqual(b []byte, lower string) bool { return bytes.EqualFold(b, []byte(lower)) }

func isReset(err error) bool { return Classify(err) == "reset" }
