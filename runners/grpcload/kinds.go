package grpcload

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// Error kinds of the runner beyond grpc_<code>.
const (
	// KindTimeout is a call that outlived its deadline (load.timeout).
	KindTimeout = "timeout"
	// KindTooLarge is a reply larger than max_recv_bytes, refused unread.
	KindTooLarge = "reply_too_large"
	// KindBadMessage is a request whose rendered JSON its input message
	// does not take.
	KindBadMessage = "bad_message"
	// KindShortStream is a stream that ended before its await count.
	KindShortStream = "stream_ended_early"
	// KindOther is an error that is no gRPC status.
	KindOther = "other"
)

// errShortStream is a stream that ended before its await count.
var errShortStream = errors.New("the stream ended before the replies awaited")

// errBadMessage wraps a request that its message type does not take.
var errBadMessage = errors.New("request message")

// classify is the error kind of a call's error ("" for none): the
// step's end (runners.KindCanceled), the call's deadline (timeout), a
// reply over max_recv_bytes, else grpc_ and the status code's name.
// step is the step's context, call the call's.
func classify(step, call context.Context, err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, errBadMessage):
		return KindBadMessage
	case errors.Is(err, errShortStream):
		return KindShortStream
	case step.Err() != nil:
		return runners.KindCanceled
	case errors.Is(call.Err(), context.DeadlineExceeded), past(call):
		return KindTimeout
	}
	st, ok := status.FromError(err)
	if !ok {
		return KindOther
	}
	if st.Code() == codes.ResourceExhausted && strings.Contains(st.Message(), "received message larger than max") {
		return KindTooLarge
	}
	return codeKind(st.Code())
}

// past reports whether ctx's deadline has passed, though its timer may
// not have fired yet: a server that keeps the deadline it was sent may
// end the call first.
func past(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// codeKind is grpc_ and code's name in snake case (grpc_unavailable,
// grpc_deadline_exceeded), grpc_code_N for a code gRPC does not name.
func codeKind(code codes.Code) string {
	switch {
	case code == codes.OK:
		return "grpc_ok"
	case code > codes.Unauthenticated:
		return "grpc_code_" + strconv.FormatUint(uint64(code), 10)
	}
	var b strings.Builder
	b.WriteString("grpc")
	for _, r := range code.String() {
		if unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// detail is what an error said, for the step's error samples: a status's
// code and message, at most 200 bytes, control characters escaped.
func detail(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	if st, ok := status.FromError(err); ok {
		s = st.Code().String() + ": " + st.Message()
	}
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return plan.Printable(s)
}
