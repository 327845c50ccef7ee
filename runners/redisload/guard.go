package redisload

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"strconv"
)

// What a guard refuses: a reply larger than its bound, or bytes that are
// not RESP.
var (
	errReplyTooLarge = errors.New("reply larger than redis.max_reply_bytes")
	errProtocol      = errors.New("not a RESP reply")
)

// Bounds of a guard beyond max_reply_bytes.
const (
	// maxLine is the longest header or simple value line.
	maxLine = 64 << 10
	// elemCost is what each element of an aggregate counts toward the
	// bound when its header is read, before the client makes room for it.
	elemCost = 32
	// maxDepth bounds the nesting of aggregates.
	maxDepth = 64
)

// guardConn is a connection whose replies a guard reads before the client
// does: a reply announcing more than the bound closes the connection, so
// a hostile server cannot make the client allocate what it says.
type guardConn struct {
	net.Conn
	g guard
}

func newGuardConn(c net.Conn, maxBytes int64) *guardConn {
	return &guardConn{Conn: c, g: guard{max: maxBytes}}
}

// Read reads from the connection and hands on what the guard accepts; a
// refused chunk is not handed on, and the connection is closed.
func (c *guardConn) Read(p []byte) (int, error) {
	if c.g.err != nil {
		return 0, c.g.err
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		if gerr := c.g.scan(p[:n]); gerr != nil {
			_ = c.Conn.Close()
			return 0, gerr
		}
	}
	return n, err
}

// guard follows a stream of RESP replies (RESP2 and RESP3) without
// keeping them: the current header line, the bytes of a bulk value still
// to pass, the elements still due at each open aggregate, and the size
// of the current top-level reply.
type guard struct {
	max   int64
	line  []byte
	skip  int64
	stack []int64
	size  int64
	err   error
}

// scan follows b; an error is kept and returned from then on.
func (g *guard) scan(b []byte) error {
	for len(b) > 0 && g.err == nil {
		if g.skip > 0 {
			k := min(g.skip, int64(len(b)))
			g.skip, g.size, b = g.skip-k, g.size+k, b[k:]
			if g.skip == 0 {
				g.done()
			}
			continue
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			g.line, g.size = append(g.line, b...), g.size+int64(len(b))
			if len(g.line) > maxLine {
				g.fail(errReplyTooLarge, "a line of more than %d bytes", maxLine)
			}
			break
		}
		g.line, g.size, b = append(g.line, b[:i+1]...), g.size+int64(i+1), b[i+1:]
		g.header()
		g.line = g.line[:0]
	}
	if g.err == nil && g.size > g.max {
		g.fail(errReplyTooLarge, "more than %d bytes", g.max)
	}
	return g.err
}

func (g *guard) fail(kind error, format string, args ...any) {
	g.err = fmt.Errorf("%w: %s", kind, fmt.Sprintf(format, args...))
}

// header reads one complete line: a simple value, or the header of a
// bulk value or an aggregate.
func (g *guard) header() {
	line := g.line
	if len(line) < 3 || line[len(line)-2] != '\r' || len(line) > maxLine {
		g.fail(errProtocol, "a line without CRLF or too long")
		return
	}
	typ, body := line[0], line[1:len(line)-2]
	switch typ {
	case '+', '-', ':', ',', '#', '_', '(':
		g.done()
	case '$', '=', '!':
		g.bulk(body)
	case '*', '~', '>', '%', '|':
		g.aggregate(typ, body)
	default:
		g.fail(errProtocol, "type byte %q", typ)
	}
}

func (g *guard) bulk(body []byte) {
	n, err := strconv.ParseInt(string(body), 10, 64)
	switch {
	case err != nil || n < -1:
		g.fail(errProtocol, "bulk length %q", body)
	case n == -1:
		g.done()
	case n > g.max-g.size:
		g.fail(errReplyTooLarge, "a value of %d bytes announced, at most %d", n, g.max)
	default:
		g.skip = n + 2
	}
}

func (g *guard) aggregate(typ byte, body []byte) {
	n, err := strconv.ParseInt(string(body), 10, 64)
	switch {
	case err != nil || n < -1:
		g.fail(errProtocol, "aggregate length %q", body)
		return
	case n == -1:
		g.done()
		return
	case n > g.max/elemCost:
		g.fail(errReplyTooLarge, "%d elements announced", n)
		return
	case len(g.stack) >= maxDepth:
		g.fail(errProtocol, "aggregates nested more than %d deep", maxDepth)
		return
	}
	switch typ {
	case '%':
		n *= 2
	case '|': // an attribute's pairs, then the value it annotates
		n = 2*n + 1
	}
	if g.size += n * elemCost; g.size > g.max {
		g.fail(errReplyTooLarge, "%d elements announced", n)
		return
	}
	if n == 0 {
		g.done()
		return
	}
	g.stack = append(g.stack, n)
}

// done notes that a value ended: it counts toward its aggregate, and a
// top-level reply's end starts the next one's size at 0.
func (g *guard) done() {
	for len(g.stack) > 0 {
		top := len(g.stack) - 1
		if g.stack[top]--; g.stack[top] > 0 {
			return
		}
		g.stack = g.stack[:top]
	}
	g.size = 0
}
