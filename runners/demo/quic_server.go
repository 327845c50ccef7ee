package demo

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
)

// QUICALPN is the ALPN protocol of the demo QUIC stream server.
const QUICALPN = "benchtui-echo"

// Stream error codes the demo QUIC server resets streams with.
const (
	// QUICCodeReset answers the RESET command.
	QUICCodeReset quic.StreamErrorCode = 1
	// QUICCodeUnknown answers a request that is no known command.
	QUICCodeUnknown quic.StreamErrorCode = 2
)

const maxQUICRequest = 64 << 10

// QUICServer is the demo QUIC stream server. Each bidirectional stream
// carries one request, which the client ends by closing its write side; the
// server answers and closes the stream. Requests (first line, UTF-8):
//
//	FETCH <path>   a markdown document of a few KB, the same for the same path (Document)
//	ECHO <text>    <text> back, everything after "ECHO "
//	LOOKUP <term>, LIST <path>   a short index (stand-ins for seed 002's server, standins.go)
//	RESET          the stream is reset with QUICCodeReset
//	CLOSE <code>   the connection is closed with application error <code>
//
// Anything else resets the stream with QUICCodeUnknown.
type QUICServer struct {
	ln      *quic.Listener
	tr      *quic.Transport
	cancel  context.CancelFunc
	wg      sync.WaitGroup // acceptLoop, connections and streams
	done    chan struct{}  // closed when the socket is closed
	streams atomic.Int64
	conns   atomic.Int64
	faults  *Faults // errors resets streams; nil: none
}

// ServeQUIC starts the demo QUIC stream server on the UDP address addr
// ("127.0.0.1:0" picks a port) with tlsConf (see SelfSignedTLS; its
// NextProtos are set to QUICALPN on a copy). It serves until ctx is done or
// Close is called.
func ServeQUIC(ctx context.Context, addr string, tlsConf *tls.Config) (*QUICServer, error) {
	return ServeQUICWith(ctx, addr, tlsConf, nil)
}

// ServeQUICWith is ServeQUIC whose streams f's fault errors breaks: the
// 1st, 51st, 101st … request is reset with QUICCodeReset. f may be nil.
func ServeQUICWith(ctx context.Context, addr string, tlsConf *tls.Config, f *Faults) (*QUICServer, error) {
	pc, err := listenUDP(addr, "QUIC")
	if err != nil {
		return nil, err
	}
	conf := tlsConf.Clone()
	conf.NextProtos = []string{QUICALPN}
	tr := &quic.Transport{Conn: pc}
	ln, err := tr.Listen(conf, &quic.Config{
		MaxIncomingStreams: 4096,
		MaxIdleTimeout:     30 * time.Second,
	})
	if err != nil {
		_ = pc.Close()
		return nil, fmt.Errorf("listening for QUIC on %s: %w", addr, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &QUICServer{ln: ln, tr: tr, cancel: cancel, done: make(chan struct{}), faults: f}
	s.wg.Add(1)
	go s.acceptLoop(ctx)
	go func() {
		<-ctx.Done()
		_ = ln.Close()
		s.wg.Wait() // every connection has sent its CONNECTION_CLOSE
		_ = tr.Close()
		_ = pc.Close()
		close(s.done)
	}()
	return s, nil
}

// Addr is the UDP address the server listens on.
func (s *QUICServer) Addr() net.Addr { return s.ln.Addr() }

// Streams is the number of requests answered so far (FETCH and ECHO).
func (s *QUICServer) Streams() int64 { return s.streams.Load() }

// Conns is the number of connections accepted so far.
func (s *QUICServer) Conns() int64 { return s.conns.Load() }

// Close stops the server, closes its connections and socket, and waits for
// every goroutine it started.
func (s *QUICServer) Close() error {
	s.cancel()
	<-s.done
	return nil
}

func (s *QUICServer) acceptLoop(ctx context.Context) {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept(ctx)
		if err != nil {
			return
		}
		s.conns.Add(1)
		s.wg.Add(1)
		go s.serveConn(ctx, c)
	}
}

func (s *QUICServer) serveConn(ctx context.Context, c *quic.Conn) {
	defer s.wg.Done()
	defer func() { _ = c.CloseWithError(0, "") }()
	for {
		str, err := c.AcceptStream(ctx)
		if err != nil {
			return
		}
		s.wg.Add(1)
		go s.serveStream(c, str)
	}
}

func (s *QUICServer) serveStream(c *quic.Conn, str *quic.Stream) {
	defer s.wg.Done()
	_ = str.SetDeadline(time.Now().Add(30 * time.Second))
	req, err := io.ReadAll(io.LimitReader(str, maxQUICRequest))
	if err != nil {
		str.CancelWrite(QUICCodeUnknown)
		return
	}
	reply, code, closeCode := answerQUIC(req)
	if s.faults.fail() {
		code, closeCode = QUICCodeReset, -1
	}
	switch {
	case closeCode >= 0:
		_ = c.CloseWithError(quic.ApplicationErrorCode(closeCode), "demo close")
		return
	case code != 0:
		str.CancelWrite(code)
		return
	}
	// Counted before the reply leaves, so that a client that has read it
	// finds it counted.
	s.streams.Add(1)
	if _, err := str.Write(reply); err != nil {
		return
	}
	_ = str.Close()
}

// answerQUIC maps a request to its reply, or to a stream reset code, or to
// a connection close code (>= 0).
func answerQUIC(req []byte) (reply []byte, reset quic.StreamErrorCode, closeCode int64) {
	line, _, _ := bytes.Cut(req, []byte("\n"))
	line = bytes.TrimRight(line, "\r")
	cmd, arg, _ := bytes.Cut(line, []byte(" "))
	switch string(cmd) {
	case "FETCH":
		return Document(string(arg)), 0, -1
	case "LOOKUP", "LIST":
		return answerStandIn(cmd, arg), 0, -1
	case "ECHO":
		_, text, _ := bytes.Cut(req, []byte(" "))
		return text, 0, -1
	case "RESET":
		return nil, QUICCodeReset, -1
	case "CLOSE":
		code, err := strconv.ParseInt(string(arg), 10, 64)
		if err == nil && code >= 0 {
			return nil, 0, code
		}
	}
	return nil, QUICCodeUnknown, -1
}
