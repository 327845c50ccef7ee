package sse

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// client opens event streams. It speaks HTTP/1.1 itself over a connection
// of its own per stream (lean), reading the response head and framing its
// body itself (head.go), so that a held stream keeps one goroutine, its
// connection and about 1 KB of buffers, and nothing of its request or
// response: at 10,000 subscribers about 9 KB of RSS each, where
// http.ReadResponse's Response, headers and buffer made it 15 and
// net/http's Transport, with a read and a write goroutine per connection,
// 29. When a proxy applies to the URL it uses one shared http.Transport
// instead.
type client struct {
	u       *url.URL
	addr    string // host:port to dial
	headers http.Header
	timeout time.Duration
	dialer  *net.Dialer
	// sources are dialer's copies, one per sse.sources address (dialer
	// alone without sources): subscriber i dials with sources[i mod n].
	sources []*net.Dialer
	tlsConf *tls.Config
	lean    bool
	tpl     *templates // nil without templates or data
	tr      *http.Transport
	hc      *http.Client
}

func newClient(s Spec, timeout time.Duration) (*client, error) {
	u, err := url.Parse(tmpl.Skeleton(s.URL))
	if err != nil {
		return nil, fmt.Errorf("parsing url %q: %w", s.URL, err)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	c := &client{
		u: u, addr: net.JoinHostPort(u.Hostname(), port), headers: http.Header{}, timeout: timeout,
		dialer:  &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second},
		tlsConf: &tls.Config{ServerName: u.Hostname(), InsecureSkipVerify: s.InsecureSkipVerify}, //nolint:gosec // the plan asks for it
	}
	c.headers.Set("Accept", "text/event-stream")
	c.headers.Set("Cache-Control", "no-cache")
	for k, v := range s.Headers {
		c.headers.Set(k, v) // a templated one is set again at every connect
	}
	c.tr = &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           runners.DialFunc(c.dialer),
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   max(s.Subscribers, 1024),
		MaxConnsPerHost:       0, // no limit: one connection per subscriber
		DisableCompression:    true,
		WriteBufferSize:       1 << 10,
		ReadBufferSize:        2 << 10,
		TLSClientConfig:       c.tlsConf.Clone(),
	}
	c.hc = &http.Client{Transport: c.tr} // no Timeout: streams end with ctx
	proxy, err := c.tr.Proxy(&http.Request{URL: u})
	c.lean = err == nil && proxy == nil
	sources, err := runners.ParseSources("sources", s.Sources)
	if err != nil {
		return nil, err
	}
	if err := runners.CheckSources("sources", sources); err != nil {
		return nil, err
	}
	if len(sources) > 0 && !c.lean {
		return nil, fmt.Errorf("sources: a proxy (HTTPS_PROXY, HTTP_PROXY) applies to %s, and its connections are shared", u.Redacted())
	}
	c.sources = runners.SourceDialers(c.dialer, sources)
	return c, nil
}

// open requests subscriber sub's stream and returns its body once the
// status is 200; dialed is called once its connection is open or failed.
func (c *client) open(ctx context.Context, sub int, lastID string, st *connectState, dialed func()) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("building request for %s: %w", c.u, err)
	}
	req.Header = c.headers.Clone()
	if c.tpl != nil {
		if st.buf, err = c.tpl.render(req, st.state(c.tpl), st.buf); err != nil {
			return nil, err
		}
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	if c.lean {
		return c.openLean(ctx, c.sources[sub%len(c.sources)], req, dialed)
	}
	dialed() // the shared transport's dials take their own turns
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", c.u, err)
	}
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		_ = resp.Body.Close()
		return nil, fmt.Errorf("connecting to %s: %w", c.u, statusError(resp.StatusCode))
	}
	return resp.Body, nil
}

// headBuffer is the lean client's read buffer of a connection, for the
// response head and a chunked body's size lines; the events are read
// through it into the stream's own buffer (readBuffer).
const headBuffer = 256

// openLean sends req on a new connection, opened with d (dialed called
// once it is open or failed), and returns the body, which owns the
// connection, once the status is 200. It keeps nothing of req or of the
// response head.
func (c *client) openLean(ctx context.Context, d *net.Dialer, req *http.Request, dialed func()) (io.ReadCloser, error) {
	conn, err := runners.Dial(ctx, d, "tcp", c.addr)
	dialed()
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", c.u, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	conn, br, h, err := c.exchange(ctx, conn, req)
	if err == nil && h.status != http.StatusOK {
		err = statusError(h.status)
	}
	if err != nil {
		stop()
		_ = conn.Close()
		return nil, fmt.Errorf("connecting to %s: %w", c.u, err)
	}
	return &connBody{body: newBody(br, h), conn: conn, stop: stop}, nil
}

// exchange writes req and reads the response head, within the timeout;
// the connection it returns is TLS's for https.
func (c *client) exchange(ctx context.Context, conn net.Conn, req *http.Request) (net.Conn, *bufio.Reader, head, error) {
	_ = conn.SetDeadline(time.Now().Add(c.timeout))
	if c.u.Scheme == "https" {
		tc := tls.Client(conn, c.tlsConf)
		if err := tc.HandshakeContext(ctx); err != nil {
			return conn, nil, head{}, fmt.Errorf("TLS handshake: %w", err)
		}
		conn = tc
	}
	if err := req.Write(conn); err != nil {
		return conn, nil, head{}, fmt.Errorf("writing request: %w", err)
	}
	br := bufio.NewReaderSize(conn, headBuffer)
	h, err := readHead(br)
	if err != nil {
		return conn, nil, head{}, fmt.Errorf("reading response: %w", err)
	}
	_ = conn.SetDeadline(time.Time{}) // an open stream has no timeout
	return conn, br, h, nil
}

// connBody is a lean stream's body; it closes its connection with it.
type connBody struct {
	*body
	conn net.Conn
	stop func() bool
}

// Close closes the connection, which ends the body.
func (b *connBody) Close() error {
	b.stop()
	return b.conn.Close()
}

func (c *client) closeIdle() { c.tr.CloseIdleConnections() }

// connectState is a subscriber's template state, made at its first
// connect, and its render buffer.
type connectState struct {
	st  *tmpl.State
	buf []byte
}

func (c *connectState) state(t *templates) *tmpl.State {
	if c.st == nil {
		c.st = tmpl.NewState(t.data, t.seq)
	}
	return c.st
}
