package httpload

import (
	"bytes"
	"fmt"
	"strconv"
)

// framing is what a response's head says: its status, whether the
// connection stays open after it, and how its body is delimited. Both
// lean clients read heads through it (the goroutine client line by line
// from its reader, the epoll client from its buffer).
type framing struct {
	code    int
	keep    bool
	length  int64 // Content-Length, -1 when none was given
	chunked bool
}

// parseStatus reads a status line ("HTTP/1.1 200 OK\r\n").
func parseStatus(line []byte) (framing, error) {
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return framing{}, fmt.Errorf("malformed status line %q", line)
	}
	code, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return framing{}, fmt.Errorf("malformed status line %q", line)
	}
	// After 101 Switching Protocols the connection speaks another
	// protocol: it is not reused for HTTP.
	return framing{code: code, keep: line[7] == '1' && code != 101, length: -1}, nil
}

// maxInterim bounds the informational replies read before a request's
// final one, as net/http's transport does: a server that sends only
// those fails the request instead of holding it to its timeout.
const maxInterim = 5

// errTooManyInterim is a reply preceded by more than maxInterim
// informational replies.
var errTooManyInterim = fmt.Errorf("more than %d informational (1xx) replies before the final one", maxInterim)

// interim reports whether the head is an informational reply that the
// request's final reply follows on the same connection (100 Continue,
// 102 Processing, 103 Early Hints): it answers nothing and is not
// counted. 101 Switching Protocols is final.
func (f *framing) interim() bool { return f.code/100 == 1 && f.code != 101 }

// field reads one header line into f, and gives it to sink (nil: none).
func (f *framing) field(h []byte, sink *replySink) error {
	name, value, _ := bytes.Cut(bytes.TrimRight(h, "\r\n"), []byte(":"))
	value = bytes.TrimSpace(value)
	switch {
	case asciiEqual(name, "content-length"):
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("bad Content-Length %q", value)
		}
		f.length = n
	case asciiEqual(name, "transfer-encoding"):
		f.chunked = bytes.Contains(bytes.ToLower(value), []byte("chunked"))
	case asciiEqual(name, "connection"):
		f.keep = f.keep && !bytes.EqualFold(value, []byte("close"))
	}
	sink.header(name, value)
	return nil
}

// bodyless reports whether the response has no body: a reply to HEAD, a
// 204, 304 or 1xx.
func (f *framing) bodyless(head bool) bool {
	return head || f.code == 204 || f.code == 304 || f.code/100 == 1
}

// delimit settles keep for a response with a body: one that runs until
// the server closes leaves nothing to reuse.
func (f *framing) delimit() { f.keep = f.keep && (f.chunked || f.length >= 0) }

// chunkSize parses a chunk's size line ("1f4;ext\r\n").
func chunkSize(line []byte) (int64, error) {
	sizeHex, _, _ := bytes.Cut(bytes.TrimSpace(line), []byte(";"))
	size, err := strconv.ParseInt(string(sizeHex), 16, 64)
	if err != nil || size < 0 {
		return 0, fmt.Errorf("bad chunk size %q", line)
	}
	return size, nil
}
