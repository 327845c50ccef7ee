package pgload

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// backend encodes the messages as a server sends them.
func backend(t *testing.T, msgs ...pgproto3.BackendMessage) []byte {
	t.Helper()
	var out []byte
	for _, m := range msgs {
		var err error
		if out, err = m.Encode(out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// feedAll frames stream fed in pieces of piece bytes, and returns each
// reply's outcome: "" for a success, the SQLSTATE of a failure.
func feedAll(t *testing.T, stream []byte, piece int) []string {
	t.Helper()
	r := newReplyReader()
	var got []string
	for len(stream) > 0 {
		n := copy(r.Space(), stream[:min(piece, len(stream))])
		stream = stream[n:]
		for {
			done, failed, err := r.Feed(n)
			n = 0
			if err != nil {
				t.Fatalf("piece %d: %v", piece, err)
			}
			if !done {
				break
			}
			var pgErr *pgconn.PgError
			switch {
			case failed == nil:
				got = append(got, "")
			case errors.As(failed, &pgErr):
				got = append(got, pgErr.Code)
			default:
				t.Fatalf("piece %d: failed with %T %v", piece, failed, failed)
			}
		}
	}
	return got
}

// TestReplyReaderFramesEveryReply: replies with rows larger than the
// buffer, a failed statement and notices between and inside replies,
// fed in pieces of every size, are framed into the same outcomes.
func TestReplyReaderFramesEveryReply(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("x"), 3*replyBuffer)
	stream := backend(t,
		&pgproto3.BindComplete{},
		&pgproto3.DataRow{Values: [][]byte{[]byte("1")}},
		&pgproto3.DataRow{Values: [][]byte{big}},
		&pgproto3.CommandComplete{CommandTag: []byte("SELECT 2")},
		&pgproto3.ReadyForQuery{TxStatus: 'I'},
		&pgproto3.ErrorResponse{Severity: "ERROR", Code: "23505", Message: "duplicate key"},
		&pgproto3.ReadyForQuery{TxStatus: 'I'},
		&pgproto3.NoticeResponse{Severity: "NOTICE", Code: "00000", Message: strings.Repeat("n", 500)},
		&pgproto3.BindComplete{},
		&pgproto3.ParameterStatus{Name: "TimeZone", Value: "UTC"},
		&pgproto3.CommandComplete{CommandTag: []byte("INSERT 0 1")},
		&pgproto3.ReadyForQuery{TxStatus: 'I'},
	)
	want := []string{"", "23505", ""}
	for _, piece := range []int{1, 2, 3, 4, 5, 6, 7, 13, 100, 4096, replyBuffer, len(stream)} {
		if got := feedAll(t, stream, piece); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("pieces of %d: %q, want %q", piece, got, want)
		}
	}
}

// TestReplyReaderRefusesBrokenStreams: a message length no server sends
// and an error response larger than the buffer end the stream, and
// memory stays the buffer's.
func TestReplyReaderRefusesBrokenStreams(t *testing.T) {
	t.Parallel()
	huge := backend(t, &pgproto3.ErrorResponse{Severity: "ERROR", Code: "XX000", Message: strings.Repeat("e", replyBuffer)})
	for name, stream := range map[string][]byte{
		"short length": {'D', 0, 0, 0, 3},
		"huge length":  {'D', 0x7f, 0xff, 0xff, 0xff},
		"huge error":   huge,
	} {
		r := newReplyReader()
		var err error
		for off := 0; off < len(stream) && err == nil; {
			n := copy(r.Space(), stream[off:])
			off += n
			_, _, err = r.Feed(n)
		}
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		if cap(r.buf) != replyBuffer {
			t.Errorf("%s: buffer grew to %d", name, cap(r.buf))
		}
	}
}

// TestClassifyKeepsHostileCodesOut: an error kind carries a SQLSTATE as
// servers send it, never a hostile server's control bytes or length.
func TestClassifyKeepsHostileCodesOut(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]string{
		"23505":                  "sqlstate_23505",
		"57P01":                  "sqlstate_57P01",
		"2350":                   "sqlstate_other",
		"\x1b[2JX":               "sqlstate_other", // five bytes, not a code
		strings.Repeat("A", 1e4): "sqlstate_other",
	} {
		if got := Classify(&pgconn.PgError{Code: code}); got != want {
			t.Errorf("Classify(code %q) = %q, want %q", code[:min(len(code), 10)], got, want)
		}
	}
}
