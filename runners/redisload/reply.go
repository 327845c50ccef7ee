package redisload

import (
	"context"
	"errors"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/redis/rueidis"
)

// Error kinds of the runner beyond the Redis error prefixes.
const (
	KindUnexpected = "unexpected_reply"
	KindTooLarge   = "reply_too_large"
	KindProtocol   = "protocol"
	KindTimeout    = "timeout"
	KindRefused    = "refused"
	KindClosed     = "closed"
	KindTemplate   = "template"
	KindOther      = "other"
)

// errUnexpected is a reply outside a command's expect list.
var errUnexpected = errors.New("reply not among the expected ones")

// redisPrefixes are the error prefixes Redis and its modules send that
// name an error kind of their own (lowercased); any other Redis error is
// of kind err.
var redisPrefixes = []string{
	"ERR", "WRONGTYPE", "NOSCRIPT", "MOVED", "ASK", "BUSY", "BUSYKEY", "BUSYGROUP",
	"LOADING", "NOAUTH", "WRONGPASS", "NOPERM", "OOM", "READONLY", "EXECABORT",
	"CROSSSLOT", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN", "NOREPLICAS", "MISCONF",
	"NOGROUP", "UNBLOCKED", "NOPROTO", "UNKILLABLE", "NOTBUSY",
}

// classify is the error kind of an operation's error ("" for none). A
// Redis error is named by its prefix (wrongtype, noscript, moved); a
// guard's refusal is reply_too_large or protocol. ctx is the operation's.
func classify(ctx context.Context, err error) string {
	if err == nil || rueidis.IsRedisNil(err) {
		return ""
	}
	if re, ok := rueidis.IsRedisErr(err); ok {
		prefix, _, _ := strings.Cut(re.Error(), " ")
		if slices.Contains(redisPrefixes, prefix) {
			return strings.ToLower(prefix)
		}
		return "err"
	}
	switch {
	case errors.Is(err, errUnexpected):
		return KindUnexpected
	case errors.Is(err, errReplyTooLarge):
		return KindTooLarge
	case errors.Is(err, errProtocol):
		return KindProtocol
	case ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return KindTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return KindRefused
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, rueidis.ErrClosing):
		return KindClosed
	}
	return KindOther
}

// detail is what an error said, for the step's error samples.
func detail(err error) string {
	if err == nil || rueidis.IsRedisNil(err) {
		return ""
	}
	return err.Error()
}

// replyText is a reply as text: a string as it is, a number in decimal,
// a boolean as true or false, nil as (nil), an aggregate's elements (a
// map's keys, sorted, each followed by its value) one per line.
func replyText(dst []byte, m rueidis.RedisMessage) []byte {
	v, err := m.ToAny()
	if err != nil {
		if rueidis.IsRedisNil(err) {
			return append(dst, "(nil)"...)
		}
		return append(dst, err.Error()...)
	}
	return appendAny(dst, v)
}

func appendAny(dst []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		return append(dst, x...)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case float64:
		return strconv.AppendFloat(dst, x, 'g', -1, 64)
	case bool:
		return strconv.AppendBool(dst, x)
	case nil:
		return append(dst, "(nil)"...)
	case error:
		return append(dst, x.Error()...)
	case []any:
		for i, e := range x {
			if i > 0 {
				dst = append(dst, '\n')
			}
			dst = appendAny(dst, e)
		}
		return dst
	case map[string]any:
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				dst = append(dst, '\n')
			}
			dst = appendAny(append(append(dst, k...), '\n'), x[k])
		}
		return dst
	}
	return dst
}
