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
// of its own per stream (lean), reading the response with http.ReadResponse
// so that a held stream costs one goroutine and about 2 KB of buffers:
// net/http's Transport adds a read and a write goroutine per connection,
// which at 10,000 subscribers is about 18 KB each. When a proxy applies to
// the URL it uses one shared http.Transport instead.
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
// status is 200.
func (c *client) open(ctx context.Context, sub int, lastID string, st *connectState) (io.ReadCloser, error) {
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
	var resp *http.Response
	if c.lean {
		resp, err = c.roundTrip(ctx, c.sources[sub%len(c.sources)], req)
	} else {
		resp, err = c.hc.Do(req)
	}
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

// roundTrip sends req on a new connection, opened with d, that the
// response body owns.
func (c *client) roundTrip(ctx context.Context, d *net.Dialer, req *http.Request) (*http.Response, error) {
	conn, err := runners.Dial(ctx, d, "tcp", c.addr)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	resp, err := c.exchange(ctx, conn, req)
	if err != nil {
		stop()
		_ = conn.Close()
		return nil, err
	}
	resp.Body = &connBody{ReadCloser: resp.Body, conn: conn, stop: stop}
	return resp, nil
}

// exchange writes req and reads the response head, within the timeout.
func (c *client) exchange(ctx context.Context, conn net.Conn, req *http.Request) (*http.Response, error) {
	_ = conn.SetDeadline(time.Now().Add(c.timeout))
	if c.u.Scheme == "https" {
		tc := tls.Client(conn, c.tlsConf)
		if err := tc.HandshakeContext(ctx); err != nil {
			return nil, fmt.Errorf("TLS handshake: %w", err)
		}
		conn = tc
	}
	if err := req.Write(conn); err != nil {
		return nil, fmt.Errorf("writing request: %w", err)
	}
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 1<<10), req)
	if err != nil {
		return nil, fmt.Errorf("reading response: %w", err)
	}
	_ = conn.SetDeadline(time.Time{}) // an open stream has no timeout
	return resp, nil
}

// connBody closes its connection with the body.
type connBody struct {
	io.ReadCloser
	conn net.Conn
	stop func() bool
}

// Close closes the connection first: the body's own Close reads to the end
// of the stream, which an event stream may never reach.
func (b *connBody) Close() error {
	b.stop()
	err := b.conn.Close()
	_ = b.ReadCloser.Close()
	return err
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
