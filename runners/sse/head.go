package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Bounds on what a server may send before a stream's events: a hostile
// or broken server gets an error, not a subscriber's worth of memory.
const (
	maxHeadLine  = 8 << 10  // a status or header line, or a chunk's size line
	maxHeadBytes = 64 << 10 // a response head, or a chunked body's trailers
	maxInterim   = 8        // 1xx responses before the final one
)

var errHead = errors.New("malformed response head")

// head is what a stream needs of its response head: the status, and how
// the body is framed (chunked, a length, or to the connection's close).
type head struct {
	status  int
	chunked bool
	length  int64 // the Content-Length; -1: none
}

// readHead reads a response head from br: the lean client's own, so that
// a held stream keeps no http.Response, header map or second buffer.
// Interim (1xx) responses are skipped.
func readHead(br *bufio.Reader) (head, error) {
	budget := maxHeadBytes
	for range maxInterim {
		h, err := readOneHead(br, &budget)
		if err != nil || h.status >= 200 {
			return h, err
		}
	}
	return head{}, fmt.Errorf("%w: more than %d interim responses", errHead, maxInterim)
}

func readOneHead(br *bufio.Reader, budget *int) (head, error) {
	line, err := headLine(br, budget)
	if err != nil {
		return head{}, err
	}
	h := head{length: -1}
	proto, rest, _ := bytes.Cut(line, []byte(" "))
	code, _, _ := bytes.Cut(rest, []byte(" "))
	if !bytes.HasPrefix(proto, []byte("HTTP/1.")) || len(code) != 3 {
		return head{}, fmt.Errorf("%w: status line %.64q", errHead, line)
	}
	if h.status, err = strconv.Atoi(string(code)); err != nil || h.status < 100 {
		return head{}, fmt.Errorf("%w: status line %.64q", errHead, line)
	}
	for {
		line, err := headLine(br, budget)
		if err != nil {
			return head{}, err
		}
		if len(line) == 0 {
			return h, nil
		}
		if err := h.header(line); err != nil {
			return head{}, err
		}
	}
}

// header applies one header line: the framing ones matter.
func (h *head) header(line []byte) error {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok {
		return fmt.Errorf("%w: header line %.64q", errHead, line)
	}
	value = bytes.TrimSpace(value)
	switch {
	case bytes.EqualFold(name, []byte("Transfer-Encoding")):
		h.chunked = bytes.EqualFold(value, []byte("chunked"))
		if !h.chunked {
			return fmt.Errorf("%w: Transfer-Encoding %.32q", errHead, value)
		}
	case bytes.EqualFold(name, []byte("Content-Length")):
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || n < 0 || (h.length >= 0 && n != h.length) {
			return fmt.Errorf("%w: Content-Length %.32q", errHead, value)
		}
		h.length = n
	}
	return nil
}

// headLine reads one line of a head, without its CRLF or LF, charging
// its length to budget. The slice is valid until br's next read.
func headLine(br *bufio.Reader, budget *int) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		long := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxHeadLine {
			line, err = br.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	*budget -= len(line)
	switch {
	case len(line) > maxHeadLine:
		return nil, fmt.Errorf("%w: a line longer than %d bytes", errHead, maxHeadLine)
	case *budget < 0:
		return nil, fmt.Errorf("%w: longer than %d bytes", errHead, maxHeadBytes)
	case errors.Is(err, io.EOF):
		return nil, io.ErrUnexpectedEOF
	case err != nil:
		return nil, err
	}
	return bytes.TrimSuffix(line[:len(line)-1], []byte("\r")), nil
}

// body reads a response's body from the connection's reader as its head
// frames it: io.EOF at its proper end (the last chunk, the length, or the
// server's close of a body without either), io.ErrUnexpectedEOF when the
// connection ends inside it.
type body struct {
	br      *bufio.Reader
	chunked bool
	left    int64 // bytes left of the chunk, or of the length; -1: to the close
	done    bool
}

func newBody(br *bufio.Reader, h head) *body {
	return &body{br: br, chunked: h.chunked, left: h.length}
}

// Read reads the body's next bytes.
func (b *body) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	if b.chunked && b.left <= 0 {
		if err := b.nextChunk(); err != nil {
			return 0, err
		}
		if b.done {
			return 0, io.EOF
		}
	}
	if b.left == 0 { // a Content-Length body read whole
		b.done = true
		return 0, io.EOF
	}
	if b.left > 0 && int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.br.Read(p)
	if b.left > 0 {
		b.left -= int64(n)
	}
	switch {
	case errors.Is(err, io.EOF) && b.left < 0: // to the close: the close is its end
		b.done = true
		return n, io.EOF
	case errors.Is(err, io.EOF):
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

// nextChunk reads the CRLF ending the chunk just read (none before the
// first) and the next chunk's size line; a zero size reads the trailers
// and marks the body done.
func (b *body) nextChunk() error {
	budget := maxHeadBytes
	if b.left == 0 {
		if line, err := headLine(b.br, &budget); err != nil || len(line) != 0 {
			return chunkError(err)
		}
	}
	line, err := headLine(b.br, &budget)
	if err != nil {
		return chunkError(err)
	}
	size, _, _ := bytes.Cut(line, []byte(";")) // chunk extensions are ignored
	n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("%w: chunk size line %.32q", errHead, line)
	}
	b.left = n
	if n > 0 {
		return nil
	}
	for { // the trailers, up to the blank line
		line, err := headLine(b.br, &budget)
		if err != nil {
			return chunkError(err)
		}
		if len(line) == 0 {
			b.done = true
			return nil
		}
	}
}

// chunkError is a chunked body's framing that ended or broke mid-way: a
// cut stream, never a clean end.
func chunkError(err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
