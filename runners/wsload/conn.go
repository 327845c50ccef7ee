package wsload

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// Error kinds of the runner; a close frame from the server is "close_"
// and its code (close_1000, close_1011).
const (
	KindTimeout  = "timeout"
	KindRefused  = "refused"
	KindReset    = "reset"
	KindClosed   = "closed"
	KindTooLarge = "message_too_large"
	KindTLS      = "tls"
	KindTemplate = "template"
	KindOther    = "other"
)

// errTemplate is a rendered URL or header value that cannot go on the
// wire: the connect is not tried.
var errTemplate = errors.New("a rendered template cannot go on the wire")

// dialer opens the group's connections: its URL and headers rendered for
// each connect, each connection dialled through runners.Dial.
type dialer struct {
	url      string         // the URL as written, when not templated
	urlT     *tmpl.Template // the templated URL, nil when not
	headers  http.Header
	headerT  map[string]*tmpl.Template
	protos   []string
	clients  []*http.Client // one per source address (ws.sources), else one
	maxBytes int64
}

func newDialer(s *Spec, c *plan.Compiled) (*dialer, error) {
	d := &dialer{url: s.URL, headers: http.Header{}, protos: s.Subprotocols, maxBytes: s.MaxMessageBytes}
	if d.maxBytes == 0 {
		d.maxBytes = DefaultMaxMessageBytes
	}
	for k, v := range s.Headers {
		d.headers.Set(k, v)
	}
	if c != nil {
		d.urlT, d.headerT = c.Fields["url"], c.Header()
	}
	sources, err := runners.ParseSources("sources", s.Sources)
	if err == nil {
		err = runners.CheckSources("sources", sources)
	}
	if err != nil {
		return nil, err
	}
	for _, nd := range runners.SourceDialers(&net.Dialer{KeepAlive: 30 * time.Second}, sources) {
		tr := &http.Transport{
			DialContext:         runners.DialFunc(nd),
			TLSClientConfig:     &tls.Config{InsecureSkipVerify: s.InsecureSkipVerify}, //nolint:gosec // the plan asks for it
			DisableKeepAlives:   true,                                                  // each handshake's connection is its WebSocket's
			DisableCompression:  true,
			MaxIdleConnsPerHost: -1,
			WriteBufferSize:     4 << 10,
			ReadBufferSize:      4 << 10,
		}
		d.clients = append(d.clients, &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }})
	}
	return d, nil
}

// dial opens connection n's (worker or subscriber n's) for st's current
// operation within ctx, from its source address. buf is a render buffer,
// handed back.
func (d *dialer) dial(ctx context.Context, n int, st *tmpl.State, buf []byte) (*websocket.Conn, []byte, error) {
	u, h := d.url, d.headers
	if d.urlT != nil {
		buf = d.urlT.Append(buf[:0], st)
		pu, err := url.Parse(string(buf))
		if err != nil || !plan.ValidRequestTarget([]byte(pu.RequestURI())) {
			return nil, buf, fmt.Errorf("url: %w", errTemplate)
		}
		u = string(buf)
	}
	if len(d.headerT) > 0 {
		h = d.headers.Clone()
		for k, t := range d.headerT {
			buf = t.Append(buf[:0], st)
			if !plan.ValidHeaderValue(buf) {
				return nil, buf, fmt.Errorf("header %s: %w", k, errTemplate)
			}
			h.Set(k, string(buf))
		}
	}
	c, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: d.clients[n%len(d.clients)], HTTPHeader: h, Subprotocols: d.protos})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			err = statusError{code: resp.StatusCode, err: err}
		}
		return nil, buf, err
	}
	c.SetReadLimit(d.maxBytes)
	return c, buf, nil
}

// close closes the transports' idle connections (none are kept).
func (d *dialer) close() {
	for _, c := range d.clients {
		c.CloseIdleConnections()
	}
}

// statusError is a handshake answered with another status than 101.
type statusError struct {
	code int
	err  error
}

func (e statusError) Error() string { return fmt.Sprintf("HTTP status %d: %v", e.code, e.err) }
func (e statusError) Unwrap() error { return e.err }

// classify is the error kind of an error of a connect, a write or a read
// (ctx is the operation's): close_NNNN for a close frame, status_Nxx for
// a refused handshake, message_too_large beyond max_message_bytes, or the
// way the connection failed.
func classify(ctx context.Context, err error) string {
	var st statusError
	var ne net.Error
	switch code := websocket.CloseStatus(err); {
	case code != -1:
		return fmt.Sprintf("close_%d", int(code))
	case errors.Is(err, errTemplate):
		return KindTemplate
	case errors.As(err, &st):
		return fmt.Sprintf("status_%dxx", st.code/100)
	case errors.Is(err, websocket.ErrMessageTooBig):
		return KindTooLarge
	case errors.Is(err, context.DeadlineExceeded), ctx.Err() != nil, errors.As(err, &ne) && ne.Timeout():
		return KindTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return KindRefused
	case errors.As(err, new(*tls.CertificateVerificationError)), errors.As(err, new(tls.AlertError)),
		errors.As(err, new(tls.RecordHeaderError)):
		return KindTLS
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return KindReset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return KindClosed
	}
	return KindOther
}

// detail is what an error said, for the step's error samples.
func detail(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// readMessage reads the next message of c into dst (emptied first), up
// to the connection's read limit, and returns it.
func readMessage(ctx context.Context, c *websocket.Conn, dst []byte) ([]byte, error) {
	_, r, err := c.Reader(ctx)
	if err != nil {
		return dst[:0], err
	}
	dst = dst[:0]
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if errors.Is(err, io.EOF) {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}
