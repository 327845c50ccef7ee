package httpload

import (
	"bytes"
	"errors"
	"io"
)

// replyBuffer is what a reply reader keeps of a connection's bytes: the
// head must fit in it, as in the goroutine client's reader, so that a
// server sending an endless head cannot grow memory.
const replyBuffer = 16 << 10

// errHeadTooLarge is a reply whose head, or a chunk's size line, does not
// fit in replyBuffer.
var errHeadTooLarge = errors.New("reply head larger than 16 KiB")

// replyReader frames HTTP/1.1 replies from bytes as they arrive, for a
// client that reads its sockets itself (the epoll client): the caller
// reads into Space, calls Feed with the count, and learns when a whole
// reply is in. Bodies are discarded as they come, so a reply of any size
// takes no more than the buffer.
type replyReader struct {
	buf        []byte // buf[start:end] not yet framed
	start, end int
	scanned    int // where the head's end was last looked for
	phase      replyPhase
	f          framing
	left       int64 // of a Content-Length body
	chunk      chunkFramer
	interim    int // informational heads skipped before the current reply's
}

type replyPhase uint8

const (
	phaseHead replyPhase = iota
	phaseLength
	phaseChunked
	phaseUntilClose
)

func newReplyReader() *replyReader { return &replyReader{buf: make([]byte, replyBuffer)} }

// Space is the free end of the buffer to read into; the bytes not yet
// framed move to its front first.
func (r *replyReader) Space() []byte {
	if r.start > 0 {
		n := copy(r.buf, r.buf[r.start:r.end])
		r.scanned -= r.start
		r.start, r.end = 0, n
	}
	return r.buf[r.end:]
}

// Reset forgets everything: the connection is new.
func (r *replyReader) Reset() { *r = replyReader{buf: r.buf} }

// Started reports whether any byte of the current reply has come.
func (r *replyReader) Started() bool { return r.end > r.start || r.phase != phaseHead }

// Feed frames n bytes read into Space. done says a whole reply is in
// (its framing is Framing), and the next Feed starts the next reply.
// head says the request was a HEAD, whose reply has no body.
func (r *replyReader) Feed(n int, head bool) (done bool, err error) {
	r.end += n
	for r.start < r.end || r.phase == phaseLength && r.left == 0 {
		switch r.phase {
		case phaseHead:
			if done, err = r.readHead(head); err != nil || done || r.phase == phaseHead {
				return done, err
			}
		case phaseLength:
			take := min(r.left, int64(r.end-r.start))
			r.start += int(take)
			if r.left -= take; r.left == 0 {
				return r.next(), nil
			}
		case phaseChunked:
			used, last, err := r.chunk.feed(r.buf[r.start:r.end])
			r.start += used
			switch {
			case err != nil:
				return false, err
			case last:
				return r.next(), nil
			case used == 0 && r.start == 0 && r.end == len(r.buf):
				return false, errHeadTooLarge
			case used == 0:
				return false, nil
			}
		case phaseUntilClose:
			r.start = r.end
		}
	}
	return false, nil
}

// EOF is the connection's end: it completes a reply delimited by it, and
// is io.EOF before any byte of a reply, else io.ErrUnexpectedEOF.
func (r *replyReader) EOF() (done bool, err error) {
	switch {
	case r.phase == phaseUntilClose:
		return r.next(), nil
	case !r.Started():
		return false, io.EOF
	}
	return false, io.ErrUnexpectedEOF
}

// Framing is the current (or just completed) reply's head.
func (r *replyReader) Framing() framing { return r.f }

// next ends a reply: what follows it stays for the next.
func (r *replyReader) next() bool {
	r.phase, r.chunk, r.interim = phaseHead, chunkFramer{}, 0
	r.scanned = r.start
	return true
}

// readHead frames the head once its empty line is in; informational
// heads before it (framing.interim) are skipped, at most maxInterim.
func (r *replyReader) readHead(head bool) (done bool, err error) {
	for {
		lines, ok, err := r.headLines()
		if err != nil || !ok {
			return false, err
		}
		if r.f, err = parseHead(lines); err != nil {
			return false, err
		}
		if !r.f.interim() {
			break
		}
		if r.interim++; r.interim > maxInterim {
			return false, errTooManyInterim
		}
	}
	if r.f.bodyless(head) {
		return r.next(), nil
	}
	r.f.delimit()
	switch {
	case r.f.chunked:
		r.phase = phaseChunked
	case r.f.length >= 0:
		r.phase, r.left = phaseLength, r.f.length
	default:
		r.phase = phaseUntilClose
	}
	return false, nil
}

// headLines cuts the next head's lines out of the buffer once its empty
// line is in (ok false: not yet).
func (r *replyReader) headLines() (lines []byte, ok bool, err error) {
	from := max(r.scanned, r.start)
	i := bytes.Index(r.buf[from:r.end], []byte("\r\n\r\n"))
	if i < 0 {
		if r.start == 0 && r.end == len(r.buf) {
			return nil, false, errHeadTooLarge
		}
		r.scanned = max(r.end-3, r.start)
		return nil, false, nil
	}
	lines = r.buf[r.start : from+i+2]
	r.start = from + i + 4
	r.scanned = r.start
	return lines, true, nil
}

// parseHead parses a head's lines, each ending in CRLF.
func parseHead(lines []byte) (framing, error) {
	line, rest := cutLine(lines)
	f, err := parseStatus(line)
	for err == nil && len(rest) > 0 {
		line, rest = cutLine(rest)
		err = f.field(line, nil)
	}
	return f, err
}

// cutLine cuts b after its first LF (or at its end).
func cutLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i+1], b[i+1:]
	}
	return b, nil
}

// chunkFramer frames a chunked body from bytes as they arrive.
type chunkFramer struct {
	left     int64 // of the current chunk's data and its CRLF
	trailers bool  // past the last chunk: trailer lines up to an empty one
}

// feed frames what it can of b: used is how many bytes it took (a line
// not complete in b is left for more), last that the body ended.
func (c *chunkFramer) feed(b []byte) (used int, last bool, err error) {
	for used < len(b) {
		if c.left > 0 {
			take := min(c.left, int64(len(b)-used))
			used += int(take)
			c.left -= take
			continue
		}
		i := bytes.IndexByte(b[used:], '\n')
		if i < 0 {
			return used, false, nil
		}
		line := b[used : used+i+1]
		used += i + 1
		if c.trailers {
			if len(line) <= 2 {
				return used, true, nil
			}
			continue
		}
		size, err := chunkSize(line)
		switch {
		case err != nil:
			return used, false, err
		case size == 0:
			c.trailers = true // its CRLF is the empty line ending them
		default:
			c.left = size + 2
		}
	}
	return used, false, nil
}
