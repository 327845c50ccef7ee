package quicload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/benchtui/benchtui/runners"
)

// codeCanceled resets a stream whose operation ran out of time.
const codeCanceled quic.StreamErrorCode = 0x62 // 'b'

var (
	errUnexpected       = errors.New("reply does not contain the expected text")
	errHandshakeTimeout = errors.New("no answer to the handshake")
)

// conn is one QUIC connection, with its HTTP/3 client in http3 mode.
type conn struct {
	qc     *quic.Conn
	h3     *http3.ClientConn
	broken atomic.Bool // an operation saw the connection fail
}

func (c *conn) dead() bool {
	if c.broken.Load() {
		return true
	}
	select {
	case <-c.qc.Context().Done():
		return true
	default:
		return false
	}
}

func (c *conn) close() {
	if c.h3 != nil {
		_ = c.h3.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "")
		return
	}
	_ = c.qc.CloseWithError(0, "")
}

// dial opens a connection on the shared transport and returns how long the
// handshake took. It does not lock r.mu.
func (r *Runner) dial(ctx context.Context) (*conn, time.Duration, error) {
	start := time.Now()
	qc, err := r.tr.Dial(ctx, r.raddr, r.tlsConf, r.qconf)
	d := time.Since(start)
	if err != nil {
		if errors.As(err, new(*quic.IdleTimeoutError)) {
			// quic-go reports a silent peer during the handshake as an
			// idle timeout; to the user it is a handshake timeout.
			err = fmt.Errorf("%w: %w", errHandshakeTimeout, err)
		}
		return nil, d, fmt.Errorf("QUIC handshake with %s: %w", r.raddr, err)
	}
	c := &conn{qc: qc}
	if r.mode == ModeHTTP3 {
		c.h3 = r.h3.NewClientConn(qc)
	}
	return c, d, nil
}

// pooled returns the shared connection for worker id, reopening it (and
// recording the handshake) when it has died.
func (r *Runner) pooled(ctx context.Context, id int, rec recorder) (*conn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tr == nil {
		return nil, errors.New("quic runner used before Prepare")
	}
	i := id % len(r.pool)
	if c := r.pool[i]; c != nil {
		if !c.dead() {
			return c, nil
		}
		c.close()
		r.pool[i] = nil
		rec.Count(CounterReconnects, 1)
	}
	c, d, err := r.dial(ctx)
	if err != nil {
		return nil, err
	}
	rec.Extra("handshake", d)
	r.pool[i] = c
	return c, nil
}

// worker runs the operations of one goroutine.
type worker struct {
	r    *Runner
	id   int
	rec  recorder
	c    *conn        // per-worker connection
	body bytes.Buffer // the reply, when it is checked
	out  rendered     // the operation's rendered templates
}

func (w *worker) own(c *conn) { w.c = c }

func (w *worker) disown() {
	w.c.close()
	w.c = nil
}

// Close closes the worker's own connection, if it has one.
func (w *worker) Close() error {
	if w.c != nil {
		w.disown()
	}
	return nil
}

// conn returns the connection for one operation.
func (w *worker) conn(ctx context.Context) (*conn, error) {
	switch w.r.policy {
	case ConnPooled:
		return w.r.pooled(ctx, w.id, w.rec)
	case ConnPerWorker:
		if w.c != nil && !w.c.dead() {
			return w.c, nil
		}
		if w.c != nil {
			w.disown()
			w.rec.Count(CounterReconnects, 1)
		}
	}
	if w.r.tr == nil {
		return nil, errors.New("quic runner used before Prepare")
	}
	c, d, err := w.r.dial(ctx)
	if err != nil {
		return nil, err
	}
	w.rec.Extra("handshake", d)
	if w.r.policy == ConnPerWorker {
		w.own(c)
	}
	return c, nil
}

// Do performs one request: on a fresh connection (handshake included) or
// on the worker's or the pool's.
func (w *worker) Do(ctx context.Context) runners.Outcome {
	if t := w.r.tpl; t != nil {
		if exhausted, err := t.render(&w.out); exhausted || err != nil {
			return runners.Outcome{Exhausted: exhausted, Err: templateKind(err)}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, w.r.timeout)
	defer cancel()
	start := time.Now()
	c, err := w.conn(ctx)
	if err != nil {
		return runners.Outcome{Err: classify(ctx, err), Sent: start}
	}
	var sent time.Time
	if w.r.mode == ModeHTTP3 {
		sent, err = w.request(ctx, c)
	} else {
		sent, err = w.stream(ctx, c)
	}
	if w.r.policy == ConnFresh {
		c.close()
		sent = start
	}
	if errors.Is(err, net.ErrClosed) {
		// quic-go's connection errors unwrap to net.ErrClosed; the
		// connection's context may not be done yet, so mark it.
		c.broken.Store(true)
	}
	if err != nil {
		return runners.Outcome{Err: classify(ctx, err), Sent: sent}
	}
	return runners.Outcome{Sent: sent}
}

// stream sends the request on a new stream and reads the reply to EOF.
func (w *worker) stream(ctx context.Context, c *conn) (time.Time, error) {
	str, err := c.qc.OpenStreamSync(ctx)
	sent := time.Now()
	if err != nil {
		return sent, fmt.Errorf("opening stream: %w", err)
	}
	stop := context.AfterFunc(ctx, func() {
		str.CancelRead(codeCanceled)
		str.CancelWrite(codeCanceled)
	})
	defer stop()
	if t := w.r.tpl; t != nil && t.request != nil {
		_, err = str.Write(w.out.request)
	} else {
		_, err = io.WriteString(str, w.r.spec.Request)
	}
	if err != nil {
		return sent, fmt.Errorf("writing request: %w", err)
	}
	if err := str.Close(); err != nil {
		return sent, fmt.Errorf("closing request side: %w", err)
	}
	return sent, w.readReply(str)
}

// request performs the HTTP/3 request.
func (w *worker) request(ctx context.Context, c *conn) (time.Time, error) {
	s := &w.r.spec
	u, body := w.fields()
	method := s.Method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	sent := time.Now()
	if err != nil {
		return sent, fmt.Errorf("building request: %w", err)
	}
	for k, v := range s.Headers {
		req.Header.Set(k, v)
	}
	for k, v := range w.out.headers {
		req.Header.Set(k, v) // rendered: they replace the templates
	}
	resp, err := c.h3.RoundTrip(req)
	if err != nil {
		return sent, fmt.Errorf("HTTP/3 %s %s: %w", method, s.URL, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if err := w.readReply(resp.Body); err != nil {
		return sent, err
	}
	if !statusOK(resp.StatusCode, s.ExpectStatus) {
		return sent, statusError(resp.StatusCode)
	}
	return sent, nil
}

func (w *worker) readReply(r io.Reader) error {
	if w.r.spec.Expect == "" {
		if _, err := io.Copy(io.Discard, r); err != nil {
			return fmt.Errorf("reading reply: %w", err)
		}
		return nil
	}
	w.body.Reset()
	if _, err := w.body.ReadFrom(r); err != nil {
		return fmt.Errorf("reading reply: %w", err)
	}
	if !bytes.Contains(w.body.Bytes(), []byte(w.r.spec.Expect)) {
		return errUnexpected
	}
	return nil
}

// fields are the HTTP/3 request's URL and body: rendered, or as written.
func (w *worker) fields() (string, io.Reader) {
	s, t := &w.r.spec, w.r.tpl
	u := s.URL
	if t != nil && t.url != nil {
		u = w.out.url
	}
	switch {
	case t != nil && t.body != nil:
		return u, bytes.NewReader(w.out.body)
	case s.Body != "":
		return u, strings.NewReader(s.Body)
	}
	return u, nil
}

// templateKind is the error kind of a failed render ("" for none).
func templateKind(err error) string {
	if err != nil {
		return "template"
	}
	return ""
}
