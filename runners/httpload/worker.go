package httpload

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

type worker struct {
	r   *Runner
	rnd *rand.Rand
	st  *tmpl.State // nil without templates or data
	buf buffers
	replyChecker
}

var _ runners.Worker = (*worker)(nil)

// Close does nothing: the connections are the runner's client's.
func (w *worker) Close() error { return nil }

// Do sends one request of the mix, drains its body so the connection is
// reused, and classifies the outcome.
func (w *worker) Do(ctx context.Context) runners.Outcome {
	if w.st != nil && !w.st.Next() {
		return runners.Outcome{Exhausted: true}
	}
	return w.sendChecked(ctx, w, w.r, w.r.mix[w.rnd.IntN(len(w.r.mix))], w.st)
}

// send sends request i with the worker's template state, reads its reply
// into sink (nil: drains it) and classifies the outcome.
func (w *worker) send(ctx context.Context, i int, sink *replySink) runners.Outcome {
	req := &w.r.reqs[i]
	hr, kind := w.build(ctx, req, w.r.tpls[i])
	if kind != "" {
		return outcome(req, 0, kind)
	}
	resp, err := w.r.client.Do(hr)
	if err != nil {
		return outcome(req, 0, classifyIn(ctx, err))
	}
	err = sink.read(resp)
	resp.Body.Close()
	if err != nil {
		return outcome(req, resp.StatusCode, classifyIn(ctx, err))
	}
	return outcome(req, resp.StatusCode, statusKind(req, resp.StatusCode))
}

// outcome is the Outcome of one request: its error kind, the request's
// name and the response's status (0 without a response).
func outcome(req *Request, status int, errKind string) runners.Outcome {
	return runners.Outcome{Err: errKind, Name: req.Name, Status: status}
}

// build makes the request: as written, or rendered from its templates. A
// rendered URL or header value that cannot go on the wire is an error of
// kind "template", and nothing is sent.
func (w *worker) build(ctx context.Context, req *Request, t *reqTemplate) (*http.Request, string) {
	u := req.URL
	var rd io.Reader
	switch {
	case t != nil:
		u = string(w.render(t.url))
		if strings.ContainsFunc(u, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			return nil, KindTemplate
		}
		if body := t.body.Append(nil, w.st); len(body) > 0 { // net/http may read it after Do returns
			rd = bytes.NewReader(body)
		}
	case req.Body != "":
		rd = strings.NewReader(req.Body) // as before templates: no copy
	}
	hr, err := http.NewRequestWithContext(ctx, method(req), u, rd)
	if err != nil {
		return nil, "other"
	}
	if t == nil {
		for k, v := range req.Headers {
			hr.Header.Set(k, v)
		}
	}
	for _, h := range t.headerList() {
		v := w.render(h.value)
		if !plan.ValidHeaderValue(v) {
			return nil, KindTemplate
		}
		hr.Header.Set(h.name, string(v))
	}
	return hr, ""
}

// render renders t into the worker's reused buffer.
func (w *worker) render(t *tmpl.Template) []byte {
	w.buf.wire = t.Append(w.buf.wire[:0], w.st)
	return w.buf.wire
}

// KindTemplate is the error kind of a request whose rendered URL or header
// value cannot go on the wire (a CR, LF or space where it would end a line
// or the request target): the request is not sent.
const KindTemplate = "template"

// statusKind judges a status: against expect_status when given, else
// 2xx and 3xx are fine.
func statusKind(req *Request, code int) string {
	if len(req.ExpectStatus) > 0 {
		if slices.Contains(req.ExpectStatus, code) {
			return ""
		}
		switch {
		case code >= 500:
			return "status_5xx"
		case code >= 400:
			return "status_4xx"
		}
		return "unexpected_status"
	}
	switch {
	case code >= 500:
		return "status_5xx"
	case code >= 400:
		return "status_4xx"
	}
	return ""
}

// classifyIn names the kind of a transport error of a request sent under
// ctx: canceled when ctx ended (the step's grace for in-flight work ran
// out, whatever error the cut surfaced as), else Classify's.
func classifyIn(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return runners.KindCanceled
	}
	return Classify(err)
}

// Classify names the kind of a transport error: timeout, refused, reset,
// canceled (a context cancelled) or other.
func Classify(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "reset"
	case errors.Is(err, context.Canceled):
		return runners.KindCanceled
	}
	return "other"
}

// leanWorker sends the mix over its own keep-alive connection.
type leanWorker struct {
	r    *Runner
	rnd  *rand.Rand
	st   *tmpl.State // nil without templates or data
	buf  buffers
	conn *leanConn
	replyChecker
}

var _ runners.Worker = (*leanWorker)(nil)

func (w *leanWorker) Do(ctx context.Context) runners.Outcome {
	if w.st != nil && !w.st.Next() {
		return runners.Outcome{Exhausted: true}
	}
	return w.sendChecked(ctx, w, w.r, w.r.mix[w.rnd.IntN(len(w.r.mix))], w.st)
}

// send sends request i with the worker's template state over its
// connection, reading its reply into sink (nil: discarding it).
func (w *leanWorker) send(ctx context.Context, i int, sink *replySink) runners.Outcome {
	req := &w.r.reqs[i]
	lr := &w.r.lean[i]
	if lr.tpl != nil {
		wire, ok := lr.tpl.render(&w.buf, w.st)
		if !ok {
			return outcome(req, 0, KindTemplate)
		}
		rendered := *lr
		rendered.wire = wire
		lr = &rendered
	}
	code, err := w.conn.roundTrip(ctx, lr, sink)
	if err != nil {
		return outcome(req, code, classifyIn(ctx, err))
	}
	return outcome(req, code, statusKind(req, code))
}

func newLeanConn(timeout time.Duration) *leanConn {
	return &leanConn{timeout: timeout, dialer: net.Dialer{Timeout: 5 * time.Second}}
}

// Close closes the worker's connection; it runs when the worker is idle.
func (w *leanWorker) Close() error {
	w.conn.stop()
	return nil
}
