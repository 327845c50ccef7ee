package quicload

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// statusError is an HTTP/3 status outside the accepted ones.
type statusError int

func (e statusError) Error() string { return fmt.Sprintf("HTTP status %d", int(e)) }

func statusOK(code int, expect []int) bool {
	if len(expect) > 0 {
		return slices.Contains(expect, code)
	}
	return code < 400
}

// classify maps an operation's error to its kind: handshake_timeout,
// idle_timeout, timeout, stream_reset, app_error_<code>, refused, tls,
// status_<N>xx, unexpected_reply or other. ctx is the operation's.
func classify(ctx context.Context, err error) string {
	var (
		st      statusError
		streamE *quic.StreamError
		appE    *quic.ApplicationError
		trE     *quic.TransportError
		h3E     *http3.Error
	)
	switch {
	case errors.As(err, &st):
		return fmt.Sprintf("status_%dxx", int(st)/100)
	case errors.Is(err, errUnexpected):
		return "unexpected_reply"
	case errors.Is(err, errHandshakeTimeout), errors.As(err, new(*quic.HandshakeTimeoutError)):
		return "handshake_timeout"
	case errors.As(err, new(*quic.IdleTimeoutError)):
		return "idle_timeout"
	case ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, context.Canceled), errors.Is(err, os.ErrDeadlineExceeded):
		return "timeout"
	case errors.As(err, &streamE):
		return "stream_reset"
	case errors.As(err, &appE):
		return fmt.Sprintf("app_error_%d", uint64(appE.ErrorCode))
	case errors.As(err, &h3E):
		return fmt.Sprintf("app_error_%d", uint64(h3E.ErrorCode))
	case errors.As(err, &trE):
		return transportKind(trE)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	}
	return "other"
}

func transportKind(e *quic.TransportError) string {
	switch {
	case e.ErrorCode == quic.ConnectionRefused:
		return "refused"
	case e.ErrorCode.IsCryptoError():
		return "tls"
	}
	return "other"
}
