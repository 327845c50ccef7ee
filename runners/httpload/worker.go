package httpload

import (
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
)

type worker struct {
	r   *Runner
	rnd *rand.Rand
}

var _ runners.Worker = (*worker)(nil)

// Close does nothing: the connections are the runner's client's.
func (w *worker) Close() error { return nil }

// Do sends one request of the mix, drains its body so the connection is
// reused, and classifies the outcome.
func (w *worker) Do(ctx context.Context) runners.Outcome {
	req := w.r.pick(w.rnd)
	var body io.Reader
	if req.Body != "" {
		body = strings.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, method(req), req.URL, body)
	if err != nil {
		return outcome(req, 0, "other")
	}
	for k, v := range req.Headers {
		hr.Header.Set(k, v)
	}
	resp, err := w.r.client.Do(hr)
	if err != nil {
		return outcome(req, 0, Classify(err))
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return outcome(req, resp.StatusCode, Classify(err))
	}
	return outcome(req, resp.StatusCode, statusKind(req, resp.StatusCode))
}

// outcome is the Outcome of one request: its error kind, the request's
// name and the response's status (0 without a response).
func outcome(req *Request, status int, errKind string) runners.Outcome {
	return runners.Outcome{Err: errKind, Name: req.Name, Status: status}
}

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

// Classify names the kind of a transport error: timeout, refused, reset or
// other.
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
		return "cancelled"
	}
	return "other"
}

// leanWorker sends the mix over its own keep-alive connection.
type leanWorker struct {
	r    *Runner
	rnd  *rand.Rand
	conn *leanConn
}

var _ runners.Worker = (*leanWorker)(nil)

func (w *leanWorker) Do(ctx context.Context) runners.Outcome {
	i := w.r.mix[w.rnd.IntN(len(w.r.mix))]
	req := &w.r.spec.Requests[i]
	code, err := w.conn.roundTrip(ctx, &w.r.lean[i])
	if err != nil {
		return outcome(req, code, Classify(err))
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
