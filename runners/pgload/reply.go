package pgload

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// replyBuffer is what a reply reader keeps of a connection's bytes: an
// ErrorResponse must fit in it; every other message is dropped as it
// comes, so a reply of any size takes no more.
const replyBuffer = 16 << 10

// maxMessage is the largest backend message a reply reader accepts, as
// the server's own limit for a field (1 GB).
const maxMessage = 1 << 30

// replyReader frames the replies of statements sent with the extended
// protocol, each ended by its Sync's ReadyForQuery, from bytes as they
// arrive, for a client that reads its sockets itself (client: epoll):
// the caller reads into Space, calls Feed with the count, and learns
// when a whole reply is in and whether the statement failed. Rows,
// notices and every other message are dropped unread.
type replyReader struct {
	buf        []byte // buf[start:end] not yet framed
	start, end int
	skip       int             // of the current message's body, still to drop
	failed     *pgconn.PgError // the current reply's ErrorResponse
}

func newReplyReader() *replyReader { return &replyReader{buf: make([]byte, replyBuffer)} }

// Space is the free end of the buffer to read into; the bytes not yet
// framed move to its front first.
func (r *replyReader) Space() []byte {
	if r.start > 0 {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	}
	return r.buf[r.end:]
}

// Reset forgets everything: the connection is new.
func (r *replyReader) Reset() { *r = replyReader{buf: r.buf} }

// Failed is the current reply's ErrorResponse, nil if none came.
func (r *replyReader) Failed() error {
	if r.failed == nil {
		return nil
	}
	return r.failed
}

// errTooLarge is a message a reply reader will not take.
var errTooLarge = errors.New("postgres: error response larger than 16 KiB")

// Feed takes n more bytes, read into Space, and frames up to the end of
// one reply: done says a ReadyForQuery ended it, failed is the
// statement's error (the server's ErrorResponse) or nil. Call it again
// with 0 for the replies behind it in what was read. err is a broken
// stream: a message of a length no server sends.
func (r *replyReader) Feed(n int) (done bool, failed error, err error) {
	r.end += n
	for {
		if r.skip > 0 {
			d := min(r.skip, r.end-r.start)
			r.start += d
			r.skip -= d
			if r.skip > 0 {
				return false, nil, nil
			}
		}
		if r.end-r.start < 5 {
			return false, nil, nil
		}
		typ := r.buf[r.start]
		length := binary.BigEndian.Uint32(r.buf[r.start+1:])
		if length < 4 || length > maxMessage {
			return false, nil, fmt.Errorf("postgres: backend message %q of length %d", typ, length)
		}
		body := int(length) - 4
		switch typ {
		case 'E', 'Z':
			if 5+body > len(r.buf) {
				return false, nil, errTooLarge
			}
			if r.end-r.start < 5+body {
				return false, nil, nil // the rest of it is still to come
			}
			msg := r.buf[r.start+5 : r.start+5+body]
			r.start += 5 + body
			if typ == 'Z' {
				failed := r.Failed()
				r.failed = nil
				return true, failed, nil
			}
			var e pgproto3.ErrorResponse
			if err := e.Decode(msg); err != nil {
				return false, nil, fmt.Errorf("postgres: error response: %w", err)
			}
			r.failed = pgconn.ErrorResponseToPgError(&e)
		default:
			r.start += 5
			r.skip = body
		}
	}
}
