package reqlog

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benchtui/benchtui/runners"
)

// BufferRecords is how many records wait for the writer at most; beyond
// them records are dropped and counted, so a slow disk never slows the
// load.
const BufferRecords = 1 << 16

// Stream is an open request stream: a runners.RequestSink whose records a
// goroutine of its own encodes into the file.
type Stream struct {
	path     string
	encode   newEncoder
	maxBytes int64
	ch       chan runners.RequestRecord
	stop     chan struct{}
	release  chan chan struct{} // Note's: write what is held
	done     chan struct{}
	closing  atomic.Bool
	capped   atomic.Bool
	written  atomic.Int64 // records in the file
	dropped  atomic.Int64 // records not written: buffer full, cap reached, after Close
	bytes    int64        // the writer's
	onCap    func()
	file     *os.File
	out      *bufio.Writer
	err      error // the first write error, the writer's until done
	closeOne sync.Once
}

// Summary is what a stream wrote, once closed.
type Summary struct {
	Path             string
	Written, Dropped int64
	Capped           bool // the cap was reached
	MaxBytes         int64
}

// String says it in a sentence, for stderr and the artifact's notes.
func (s Summary) String() string {
	msg := fmt.Sprintf("requests: %d records written to %s", s.Written, filepath.Base(s.Path))
	if s.Dropped > 0 {
		msg += fmt.Sprintf(", %d dropped", s.Dropped)
	}
	if s.Capped {
		msg += fmt.Sprintf(" (the file reached its cap of %s: --requests-max)", FormatSize(s.MaxBytes))
	} else if s.Dropped > 0 {
		msg += " (the writer fell behind)"
	}
	return msg
}

// Format is a request file's encoding, by its extension: ".csv" or
// ".json" (vegeta's `encode -to csv|json`).
func formatOf(path string) (newEncoder, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return csvEncoder, nil
	case ".json":
		return jsonEncoder, nil
	}
	return nil, fmt.Errorf("--requests %s: the file must end in .csv or .json (vegeta's CSV or JSON results)", path)
}

// Check says whether path is a request file Open would take.
func Check(path string) error {
	_, err := formatOf(path)
	return err
}

// Open creates (or truncates) the file at path and starts its writer;
// the file holds at most maxBytes. onCap, unless nil, is called once, from
// the writer, when the cap is reached.
func Open(path string, maxBytes int64, onCap func()) (*Stream, error) {
	enc, err := formatOf(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--requests: %w", err)
	}
	s := &Stream{path: path, encode: enc, maxBytes: maxBytes, onCap: onCap, file: f, out: bufio.NewWriterSize(f, 256<<10),
		ch: make(chan runners.RequestRecord, BufferRecords), stop: make(chan struct{}), release: make(chan chan struct{}), done: make(chan struct{})}
	go s.write()
	return s, nil
}

// Request queues rec for the file, or counts it dropped when the buffer
// is full, the cap reached or the stream closed. It never blocks.
func (s *Stream) Request(rec runners.RequestRecord) {
	if s.capped.Load() || s.closing.Load() {
		s.dropped.Add(1)
		return
	}
	select {
	case s.ch <- rec:
	default:
		s.dropped.Add(1)
	}
}

// Note is the stream's figures so far, for the artifact of a group that
// has finished: it first has the writer write every record it holds (each
// of the group's operations has ended), waiting up to NoteWait.
func (s *Stream) Note() string {
	done := make(chan struct{})
	wait := time.NewTimer(NoteWait)
	defer wait.Stop()
	select {
	case s.release <- done:
		select {
		case <-done:
		case <-wait.C:
		}
	case <-s.done:
	case <-wait.C:
	}
	return s.summary().String() + " so far"
}

// NoteWait bounds Note's wait for the writer.
const NoteWait = time.Second

func (s *Stream) summary() Summary {
	return Summary{Path: s.path, Written: s.written.Load(), Dropped: s.dropped.Load(), Capped: s.capped.Load(), MaxBytes: s.maxBytes}
}

// Close writes what is buffered, closes the file and returns what the
// stream wrote; records after it are dropped. Close is idempotent.
func (s *Stream) Close() (Summary, error) {
	s.closeOne.Do(func() {
		s.closing.Store(true)
		close(s.stop)
		<-s.done
		s.dropped.Add(int64(len(s.ch))) // queued as it closed
		if err := s.out.Flush(); err != nil && s.err == nil {
			s.err = err
		}
		if err := s.file.Close(); err != nil && s.err == nil {
			s.err = err
		}
	})
	if s.err != nil {
		return s.summary(), fmt.Errorf("--requests %s: %w", s.path, s.err)
	}
	return s.summary(), nil
}

// write encodes records until Close, then what is left in the buffer;
// it holds them a while to write them in due order (orderer).
func (s *Stream) write() {
	defer close(s.done)
	var (
		buf   bytes.Buffer
		order orderer
	)
	enc := s.encode(&buf)
	emit := func(rec runners.RequestRecord, seq uint64) { s.writeOne(&buf, enc, rec, seq) }
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case rec := <-s.ch:
			order.add(attackName(rec), rec)
			if order.held > HoldRecords {
				order.release(time.Now().Add(-HoldFor), emit)
			}
		case <-tick.C:
			order.release(time.Now().Add(-HoldFor), emit)
		case done := <-s.release:
			for range len(s.ch) {
				rec := <-s.ch
				order.add(attackName(rec), rec)
			}
			order.release(time.Time{}, emit)
			close(done)
		case <-s.stop:
			for range len(s.ch) {
				rec := <-s.ch
				order.add(attackName(rec), rec)
			}
			order.release(time.Time{}, emit)
			return
		}
	}
}

// writeOne appends rec, its attack's number seq, to the file unless the
// cap or an error stops it.
func (s *Stream) writeOne(buf *bytes.Buffer, enc encoder, rec runners.RequestRecord, seq uint64) {
	if s.capped.Load() || s.err != nil {
		s.dropped.Add(1)
		return
	}
	buf.Reset()
	if err := enc(toResult(rec, seq)); err != nil {
		s.err = err
		s.dropped.Add(1)
		return
	}
	if s.bytes+int64(buf.Len()) > s.maxBytes {
		s.capped.Store(true)
		s.dropped.Add(1)
		if s.onCap != nil {
			s.onCap()
		}
		return
	}
	if _, err := s.out.Write(buf.Bytes()); err != nil {
		s.err = err
		s.dropped.Add(1)
		return
	}
	s.bytes += int64(buf.Len())
	s.written.Add(1)
}
