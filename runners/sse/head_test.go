package sse

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadHead(t *testing.T) {
	for _, c := range []struct {
		in   string
		want head
		err  string
	}{
		{"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n", head{200, true, -1}, ""},
		{"HTTP/1.0 200 OK\nContent-Length: 12\n\n", head{200, false, 12}, ""},
		{"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 503 Busy\r\ncontent-length: 0\r\n\r\n", head{503, false, 0}, ""},
		{"HTTP/1.1 200\r\n\r\n", head{200, false, -1}, ""}, // no reason phrase
		{"HTTP/2 200 OK\r\n\r\n", head{}, "status line"},
		{"HTTP/1.1 2000 OK\r\n\r\n", head{}, "status line"},
		{"HTTP/1.1 099 Low\r\n\r\n", head{}, "status line"},
		{"ICY 200 OK\r\n\r\n", head{}, "status line"},
		{"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", head{}, "header line"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", head{}, "Transfer-Encoding"},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", head{}, "Content-Length"},
		{"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", head{}, "Content-Length"},
		{"HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", maxHeadLine) + "\r\n\r\n", head{}, "a line longer than 8192 bytes"},
		{"HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Pad: "+strings.Repeat("p", 1000)+"\r\n", 70) + "\r\n", head{}, "longer than 65536 bytes"},
		{strings.Repeat("HTTP/1.1 103 Early Hints\r\n\r\n", 9), head{}, "more than 8 interim responses"},
		{"HTTP/1.1 200 OK\r\nContent-Ty", head{}, "unexpected EOF"},
	} {
		got, err := readHead(bufio.NewReaderSize(strings.NewReader(c.in), headBuffer))
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("readHead(%.40q) = %+v, %v; want %+v", c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("readHead(%.40q): error %v, want one saying %q", c.in, err, c.err)
		}
	}
}

// TestBodyFraming: each framing ends with io.EOF at its proper end and
// io.ErrUnexpectedEOF when the connection ends inside it (a cut stream).
func TestBodyFraming(t *testing.T) {
	for _, c := range []struct {
		name, in string
		h        head
		want     string
		err      error
	}{
		{"chunked", "5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nTrailer: x\r\n\r\nNEXT", head{200, true, -1}, "hello, world", io.EOF},
		{"chunked cut in a chunk", "5\r\nhello\r\n7\r\n, wo", head{200, true, -1}, "hello, wo", io.ErrUnexpectedEOF},
		{"chunked cut before the last chunk", "5\r\nhello\r\n", head{200, true, -1}, "hello", io.ErrUnexpectedEOF},
		{"chunked cut in the trailers", "0\r\nTrailer: x\r\n", head{200, true, -1}, "", io.ErrUnexpectedEOF},
		{"chunk without its CRLF", "5\r\nhelloXX3\r\nabc\r\n0\r\n\r\n", head{200, true, -1}, "hello", io.ErrUnexpectedEOF},
		{"length", "hello, worldNEXT", head{200, false, 12}, "hello, world", io.EOF},
		{"length cut", "hello", head{200, false, 12}, "hello", io.ErrUnexpectedEOF},
		{"to the close", "hello, world", head{200, false, -1}, "hello, world", io.EOF},
	} {
		b := newBody(bufio.NewReaderSize(strings.NewReader(c.in), 16), c.h)
		got, err := readAllSmall(b)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("%s: read %q, %v; want %q, %v", c.name, got, err, c.want, c.err)
		}
	}
	b := newBody(bufio.NewReaderSize(strings.NewReader("zz\r\nhello\r\n"), 16), head{200, true, -1})
	if _, err := readAllSmall(b); err == nil || !strings.Contains(err.Error(), "chunk size line") {
		t.Errorf("a bad chunk size: %v", err)
	}
}

// readAllSmall reads r 3 bytes at a time (so chunks and lines span
// reads) until an error, and returns the bytes and that error.
func readAllSmall(r io.Reader) (string, error) {
	var out []byte
	p := make([]byte, 3)
	for range 10_000 {
		n, err := r.Read(p)
		out = append(out, p[:n]...)
		if err != nil {
			return string(out), err
		}
	}
	return string(out), errors.New("no end after 10,000 reads")
}
