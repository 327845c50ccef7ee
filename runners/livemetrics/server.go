package livemetrics

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves e's metrics in the Prometheus exposition format (text,
// protobuf, or OpenMetrics text when the scraper's Accept header asks for
// it: expfmt's negotiation), from a registry of their own (no Go runtime or process metrics of benchtui:
// those would be mistaken for the target's).
func (e *Exporter) Handler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(e)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, EnableOpenMetrics: true})
}

// CheckAddr refuses a listen address that is not on loopback (an IP
// loopback address or "localhost"; an empty host means every interface)
// unless remote allows it: the endpoint has no authentication, and it
// names the plan's groups, steps and targets to whoever can reach it.
func CheckAddr(addr string, remote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("metrics address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); remote || host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	return fmt.Errorf("metrics address %q is not on loopback: serving figures to the network needs --metrics-remote", addr)
}

// Server serves an Exporter's metrics on /metrics until closed.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
}

// Serve checks addr (CheckAddr), listens on it and serves e on /metrics.
func Serve(addr string, remote bool, e *Exporter) (*Server, error) {
	if err := CheckAddr(addr, remote); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", e.Handler())
	s := &Server{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		// Serve ends with ErrServerClosed on Close; any other error is a
		// failed listener: scrapes stop, and the run goes on without them.
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// URL is where the metrics are served.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/metrics" }

// Close stops serving, waiting for nothing but the server's goroutine.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}
