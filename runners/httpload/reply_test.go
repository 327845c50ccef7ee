package httpload

import (
	"bufio"
	"errors"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/flow"
)

// replies are framed responses, back to back as on one connection.
var replies = []struct {
	wire string
	code int
	keep bool
	head bool
}{
	{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, true, false},
	{"HTTP/1.1 203 X\r\nTransfer-Encoding: chunked\r\n\r\n3;x=1\r\nabc\r\n10\r\n" + strings.Repeat("z", 16) + "\r\n0\r\nT: 1\r\n\r\n", 203, true, false},
	{"HTTP/1.1 204 No Content\r\n\r\n", 204, true, false},
	{"HTTP/1.1 200 OK\r\nContent-Length: 40000\r\n\r\n" + strings.Repeat("b", 40000), 200, true, false},
	{"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n", 200, true, true},
	{"HTTP/1.1 201 OK\r\nContent-Length: 0\r\n\r\n", 201, true, false},
	{"HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n" +
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 200, true, false},
	{"HTTP/1.1 202 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", 202, false, false},
	{"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", 101, false, false},
}

// TestReplyReaderFramesInAnySplit feeds the replies in pieces of every
// size from one byte up, and checks each is framed once, in order.
func TestReplyReaderFramesInAnySplit(t *testing.T) {
	var wire strings.Builder
	for _, r := range replies {
		wire.WriteString(r.wire)
	}
	for _, piece := range []int{1, 2, 3, 7, 100, 5000, replyBuffer} {
		rr := newReplyReader()
		got := 0
		for rest := wire.String(); len(rest) > 0; {
			space := rr.Space()
			n := copy(space[:min(piece, len(space))], rest)
			rest = rest[n:]
			done, err := rr.Feed(n, replies[got].head)
			if err != nil {
				t.Fatalf("piece %d, reply %d: %v", piece, got, err)
			}
			for done {
				if f := rr.Framing(); f.code != replies[got].code || f.keep != replies[got].keep {
					t.Fatalf("piece %d, reply %d: framed %+v", piece, got, f)
				}
				if got++; got == len(replies) {
					break
				}
				done, err = rr.Feed(0, replies[got].head) // what is left of the read
				if err != nil {
					t.Fatalf("piece %d, reply %d: %v", piece, got, err)
				}
			}
		}
		if got != len(replies) {
			t.Errorf("piece %d: %d replies framed, want %d", piece, got, len(replies))
		}
	}
}

// TestBothReadersSkipInformationalReplies: 1xx replies before a final
// one answer nothing (both readers give the final one, its fields
// alone to captures); more than maxInterim of them are an error, not a
// wait for the request's timeout.
func TestBothReadersSkipInformationalReplies(t *testing.T) {
	hint := "HTTP/1.1 103 Early Hints\r\nX-Hint: 1\r\n\r\n"
	final := "HTTP/1.1 200 OK\r\nX-Final: 2\r\nContent-Length: 2\r\n\r\nok"
	for n, wantErr := range map[int]bool{1: false, maxInterim: false, maxInterim + 1: true} {
		wire := strings.Repeat(hint, n) + final
		rr := newReplyReader()
		done, err := rr.Feed(copy(rr.Space(), wire), false)
		if errors.Is(err, errTooManyInterim) != wantErr || !wantErr && (!done || rr.Framing().code != 200) {
			t.Errorf("epoll reader, %d hints: done %v, %+v, %v", n, done, rr.Framing(), err)
		}
		sink := &replySink{reply: &flow.Reply{}, headers: []string{"X-Hint", "X-Final"}}
		code, _, err := readResponse(bufio.NewReader(strings.NewReader(wire)), false, sink)
		if errors.Is(err, errTooManyInterim) != wantErr || !wantErr && code != 200 {
			t.Errorf("lean reader, %d hints: %d, %v", n, code, err)
		}
		if h := sink.reply.Headers; !wantErr && (len(h) != 2 || h[0] != "" || h[1] != "2") {
			t.Errorf("lean reader, %d hints: captured headers %q; want the final reply's alone", n, h)
		}
	}
}

// TestReplyReaderBounds: an endless head or chunk size line is an error
// once the buffer is full; a body delimited by the connection's end ends
// with it; an end mid-reply is unexpected.
func TestReplyReaderBounds(t *testing.T) {
	for _, start := range []string{"HTTP/1.1 200 OK\r\nX: ", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1"} {
		rr := newReplyReader()
		var err error
		for i, next := 0, start; err == nil && i < 4*replyBuffer; i, next = i+1, "" {
			n := copy(rr.Space(), next+strings.Repeat("a", replyBuffer))
			_, err = rr.Feed(n, false)
		}
		if !errors.Is(err, errHeadTooLarge) {
			t.Errorf("%q then endless bytes: %v, want errHeadTooLarge", start, err)
		}
	}
	rr := newReplyReader()
	n := copy(rr.Space(), "HTTP/1.0 200 OK\r\n\r\nuntil the end")
	if done, err := rr.Feed(n, false); done || err != nil {
		t.Fatalf("until close: done %v err %v before the end", done, err)
	}
	if done, err := rr.EOF(); !done || err != nil || rr.Framing().keep {
		t.Errorf("until close at the end: done %v err %v %+v", done, err, rr.Framing())
	}
	rr.Reset()
	n = copy(rr.Space(), "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort")
	rr.Feed(n, false)
	if _, err := rr.EOF(); err == nil {
		t.Error("a reply cut short: no error")
	}
}
