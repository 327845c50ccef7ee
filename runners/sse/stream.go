package sse

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/httpload"
)

const (
	readBuffer = 512     // per subscriber; longer lines are gathered in stream.long
	maxLine    = 1 << 20 // a longer line ends the stream
)

// BytesPerSubscriber is about what one held stream costs benchtui's
// memory (RSS), as bench/sse-subscribers.sh measures it at 100,000
// subscribers; doctor weighs a plan's subscribers with it.
const BytesPerSubscriber = 10 << 10

var errLineTooLong = errors.New("event stream line longer than 1 MiB")

// statusError is a response status other than 200.
type statusError int

func (e statusError) Error() string { return fmt.Sprintf("HTTP status %d", int(e)) }

// stream is one subscriber's state, kept across its reconnects.
type stream struct {
	d      *drive
	sub    int // the subscriber's number in the step
	rec    recorder
	br     *bufio.Reader
	lastID []byte // the last event ID string, sent as Last-Event-ID
	idBuf  []byte // the last event ID buffer, set by id: fields
	hasID  bool
	data   []byte // the data buffer of the event being read
	long   []byte
	tpl    connectState
	user   *httpload.BeforeUser // runs the flow before each connect; nil without one
	opened bool                 // a stream was open once: the next open is a reconnect
}

// connect opens the stream and reads it until it ends. It returns the
// number of events received.
func (s *stream) connect(ctx context.Context) int {
	start := time.Now()
	body, err := s.openAside(ctx)
	if errors.Is(err, errFlowFailed) {
		return 0 // the failed step is recorded under its name
	}
	if err != nil {
		s.failed(ctx, start, err)
		return 0
	}
	if s.opened {
		s.rec.Count(CounterReconnects, 1) // opened again: an attempt that failed is no reconnect
	}
	s.opened = true
	s.d.open()
	defer s.d.closed()
	defer func() { _ = body.Close() }()
	n, err := s.read(body, start)
	if ctx.Err() == nil {
		s.rec.Count(CounterDisconnects, 1)
		s.rec.Count(endKind(err), 1)
	}
	return n
}

// errFlowFailed: a step of the subscriber's flow failed before its
// connect (and was recorded under its name).
var errFlowFailed = errors.New("the flow failed")

// openAside opens the stream on a goroutine of its own, which ends once
// the stream is open or has failed. A connect (the dial, TLS, the
// request, the response head, a flow's requests) grows a goroutine's
// stack to 8 KB, and the collector halves a stack only while less than a
// quarter of it is in use, which a blocked read's frames exceed: the
// subscriber's goroutine, which only reads, holds 4 KB instead (at
// 10,000 subscribers, 40 MB of stacks instead of 80).
func (s *stream) openAside(ctx context.Context) (io.ReadCloser, error) {
	select {
	case openers <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	dialed := sync.OnceFunc(func() { <-openers })
	var body io.ReadCloser
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer dialed()
		body, err = s.open(ctx, dialed)
	}()
	<-done
	return body, err
}

// openers bounds the streams being opened that have not yet connected
// (openAside's goroutines, up to their dial), at twice the dialling turns
// (runners.DialsPerCPU): a ramp of 15,000 subscribers at once otherwise
// started as many goroutines, each waiting for a dialling turn with its
// request built, and the memory they left behind was 30 MB of RSS past
// the ramp. A connected stream waiting for its response head holds none:
// a server slow to answer is not queued behind. A wait here is part of
// the connect's latency, as a wait for a dialling turn is.
var openers = make(chan struct{}, 2*runners.DialsPerCPU*runtime.GOMAXPROCS(0))

// open runs the subscriber's flow, if it has one, and opens its stream;
// dialed is called once its connection is open or failed (and before a
// flow, whose requests dial their own).
func (s *stream) open(ctx context.Context, dialed func()) (io.ReadCloser, error) {
	var lastID string
	if s.hasID {
		lastID = string(s.lastID)
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	if s.user != nil {
		dialed()
		if s.user.Run(ctx).Err != "" {
			return nil, errFlowFailed
		}
	}
	return s.d.r.client.open(ctx, s.sub, lastID, &s.tpl, dialed)
}

// begin starts a connect on the subscriber's template state: its data row
// and {{seq}}, and its flow's user on the first connect.
func (s *stream) begin(ctx context.Context) error {
	c := s.d.r.client
	if c.tpl == nil {
		return nil
	}
	st := s.tpl.state(c.tpl)
	st.SetStep(s.d.r.step)
	if !st.Next() {
		return errExhausted
	}
	if b := s.d.r.before; b != nil && s.user == nil {
		s.user = b.NewUser(st, uncut{s.rec})
	}
	return nil
}

// uncut records a flow's steps but those the step's end cut
// (runners.KindCanceled): as a connect that had only just begun, a
// request the subscriber had in flight when the step ended is no
// operation of the step.
type uncut struct{ recorder }

// Record records out unless the step's end cut it.
func (u uncut) Record(due, sent, end time.Time, out runners.Outcome) {
	if out.Err != runners.KindCanceled {
		u.recorder.Record(due, sent, end, out)
	}
}

// failed records a connect that began at start and failed with err as an
// errored operation. One cut by the step's end counts too, as a timeout,
// when it had waited at least unanswered for its response headers (a
// silent server must not pass as zero errors); one that had only just
// begun does not.
func (s *stream) failed(ctx context.Context, start time.Time, err error) {
	if s.paused() {
		return
	}
	el := time.Since(start)
	switch {
	case ctx.Err() == nil:
		s.rec.Observe(el, el, kindOf(err))
	case el >= s.d.r.unanswered():
		s.rec.Observe(el, el, kindTimeout)
	}
}

// Counters of how streams ended while the step ran: the server finished
// the response (clean), or the connection broke mid-stream (cut).
const (
	CounterClosedClean = "streams_closed_clean"
	CounterCut         = "streams_cut"
	// CounterDisconnects counts streams that ended, however they did;
	// CounterReconnects the streams opened again after one (a reconnect
	// attempt that failed is an errored operation, not a reconnect).
	CounterDisconnects = "disconnects"
	CounterReconnects  = "reconnects"
)

// Counters are the counters an sse step counts (runners.Kind.Counters).
func Counters() []string {
	return []string{CounterDisconnects, CounterReconnects, CounterClosedClean, CounterCut}
}

// endKind names how a stream's body ended: io.EOF is the response's proper
// end (the last chunk, or the server closing a close-delimited body);
// anything else (a reset, an unexpected EOF inside a chunk) cut it.
func endKind(err error) string {
	if errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return CounterClosedClean
	}
	return CounterCut
}

// read parses events until the body ends and records each one; it
// returns the count and the error that ended the body.
func (s *stream) read(body io.Reader, start time.Time) (int, error) {
	if s.br == nil {
		s.br = bufio.NewReaderSize(body, readBuffer)
	} else {
		s.br.Reset(body)
	}
	s.data = s.data[:0]
	prev, n := start, 0
	for {
		line, err := s.readLine()
		if err != nil {
			return n, err
		}
		if len(line) > 0 {
			s.field(line)
			continue
		}
		// A blank line dispatches the event.
		s.lastID, s.hasID = append(s.lastID[:0], s.idBuf...), len(s.idBuf) > 0
		if len(s.data) == 0 {
			continue
		}
		now := time.Now()
		lat, ok := sentAt(s.data, s.idBuf, now)
		if !ok {
			lat = now.Sub(prev)
		}
		if n == 0 {
			s.rec.Extra("first_event", now.Sub(start))
		}
		if !s.paused() {
			s.rec.Observe(lat, lat, "")
		}
		prev, n = now, n+1
		s.data = s.data[:0]
	}
}

// paused reports whether the step is paused: nothing is recorded then.
func (s *stream) paused() bool {
	g := s.d.h.gate()
	return g != nil && g.Paused()
}

// field applies one non-blank line of the stream.
func (s *stream) field(line []byte) {
	if line[0] == ':' { // comment
		return
	}
	name, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(name) {
	case "data":
		if len(s.data) > 0 {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			s.idBuf = append(s.idBuf[:0], value...)
		}
	}
}

// readLine returns the next line without its end of line; it is valid
// until the next call.
func (s *stream) readLine() ([]byte, error) {
	line, err := s.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.long = append(s.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) && len(s.long) <= maxLine {
			line, err = s.br.ReadSlice('\n')
			s.long = append(s.long, line...)
		}
		if len(s.long) > maxLine {
			s.long = nil // do not keep a megabyte per subscriber
			return nil, errLineTooLong
		}
		line = s.long
	}
	if err != nil {
		return nil, err // a line cut off by the end of the stream is no event
	}
	line = line[:len(line)-1]
	return bytes.TrimSuffix(line, []byte("\r")), nil
}

// kindTimeout is the error kind of a connect that got no response
// headers in time.
const kindTimeout = "timeout"

// kindOf maps a failed connect to its error kind: status_<N>xx, refused,
// tls, reset, timeout or other.
func kindOf(err error) string {
	var st statusError
	var ne net.Error
	switch {
	case errors.Is(err, errTemplate):
		return "template"
	case errors.Is(err, errExhausted):
		return "data_exhausted"
	case errors.As(err, &st):
		return fmt.Sprintf("status_%dxx", int(st)/100)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.As(err, new(*tls.CertificateVerificationError)), errors.As(err, new(tls.AlertError)),
		errors.As(err, new(tls.RecordHeaderError)):
		return "tls"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "reset"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return kindTimeout
	}
	return "other"
}
