package demo

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// HTTP3Server serves an http.Handler over HTTP/3.
type HTTP3Server struct {
	srv  *http3.Server
	pc   net.PacketConn
	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup
	err  error
}

// ServeHTTP3 serves h over HTTP/3 on the UDP address addr ("127.0.0.1:0"
// picks a port) with tlsConf (see SelfSignedTLS; ALPN h3 is set on a copy)
// until ctx is done or Close is called. Mount the HTTP demo's handler to
// serve the same routes over HTTP/3.
func ServeHTTP3(ctx context.Context, addr string, tlsConf *tls.Config, h http.Handler) (*HTTP3Server, error) {
	pc, err := listenUDP(addr, "HTTP/3")
	if err != nil {
		return nil, err
	}
	s := &HTTP3Server{
		srv: &http3.Server{
			Handler:    h,
			TLSConfig:  http3.ConfigureTLSConfig(tlsConf.Clone()),
			QUICConfig: &quic.Config{MaxIncomingStreams: 4096},
			Logger:     slog.New(slog.DiscardHandler),
		},
		pc:   pc,
		stop: make(chan struct{}),
	}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		if err := s.srv.Serve(pc); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, quic.ErrServerClosed) {
			s.err = fmt.Errorf("serving HTTP/3: %w", err)
		}
	}()
	go func() {
		defer s.wg.Done()
		select {
		case <-ctx.Done():
			_ = s.shutdown()
		case <-s.stop:
		}
	}()
	return s, nil
}

// Addr is the UDP address the server listens on.
func (s *HTTP3Server) Addr() net.Addr { return s.pc.LocalAddr() }

// Close stops the server and waits for its goroutines. It returns the
// error that ended serving, if any other than closing.
func (s *HTTP3Server) Close() error {
	err := s.shutdown()
	s.wg.Wait()
	if s.err != nil {
		return s.err
	}
	return err
}

func (s *HTTP3Server) shutdown() error {
	var err error
	s.once.Do(func() {
		close(s.stop)
		err = s.srv.Close()
		if cerr := s.pc.Close(); err == nil && cerr != nil && !errors.Is(cerr, net.ErrClosed) {
			err = cerr
		}
	})
	return err
}
