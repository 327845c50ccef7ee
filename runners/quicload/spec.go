// Package quicload is benchtui's QUIC runner (`runner: quic`): request and
// response over QUIC through quic-go, either as raw streams (one request
// per bidirectional stream: open, write, close the write side, read the
// reply to EOF) or as HTTP/3 requests.
//
// Connections are pooled (a small set shared by all workers, opened in
// Prepare before the clock starts), per-worker (one each, opened when the
// worker is made), or fresh (a new connection per operation; the handshake
// is part of the operation and its time is also recorded as the
// "handshake" extra). All connections of a runner share one UDP socket.
package quicload

import (
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// Modes and connection policies of the quic section.
const (
	ModeStream = "stream"
	ModeHTTP3  = "http3"

	ConnPooled    = "pooled"
	ConnPerWorker = "per-worker"
	ConnFresh     = "fresh"
)

// DefaultALPN is the stream mode's ALPN when none is given: the demo QUIC
// server's.
const DefaultALPN = "benchtui-echo"

const (
	defaultHandshakeTimeout = 5 * time.Second
	defaultIdleTimeout      = 30 * time.Second
	defaultOpTimeout        = 30 * time.Second
)

// Spec is the `quic:` section of a group.
type Spec struct {
	// Mode is stream or http3; empty means http3 when URL is set, else stream.
	Mode string `yaml:"mode"`
	// Addr is the server's UDP host:port (stream mode).
	Addr string `yaml:"addr"`
	// ALPN is the stream mode's application protocol (DefaultALPN if empty).
	ALPN string `yaml:"alpn"`
	// Request is what each stream carries (stream mode).
	Request string `yaml:"request"`
	// URL, Method (GET by default), Body and Headers make the HTTP/3 request.
	URL     string            `yaml:"url"`
	Method  string            `yaml:"method"`
	Body    string            `yaml:"body"`
	Headers map[string]string `yaml:"headers"`
	// ExpectStatus lists accepted HTTP/3 statuses; empty accepts 1xx-3xx.
	ExpectStatus []int `yaml:"expect_status"`
	// Expect, when set, must occur in every reply body.
	Expect string `yaml:"expect"`
	// Connection is pooled (default), per-worker or fresh.
	Connection string `yaml:"connection"`
	// Pool is the number of shared connections when pooled (default 1).
	Pool int `yaml:"pool"`
	// TLS: skip verification, trust a PEM file, or set the SNI name.
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify"`
	CAFile             string `yaml:"ca_file"`
	ServerName         string `yaml:"server_name"`
	// HandshakeTimeout aborts a silent handshake (quic-go's handshake idle
	// timeout, default 5s); IdleTimeout closes an idle connection (30s).
	HandshakeTimeout plan.Duration `yaml:"handshake_timeout"`
	IdleTimeout      plan.Duration `yaml:"idle_timeout"`
}

// Section is the plan key of the QUIC section.
const Section = "quic"

// Kind is `runner: quic`: streams or HTTP/3 requests through quic-go,
// driven by the engine's loops.
func Kind() runners.Kind {
	return runners.Kind{
		Name: "quic", Sections: map[string]func() any{Section: func() any { return &Spec{} }},
		Validate: validate, New: newKind, Counters: runners.FixedCounters(CounterReconnects),
	}
}

// CounterReconnects counts the connections a worker opened again after
// losing one.
const CounterReconnects = "reconnects"

func specOf(g *plan.Group) *Spec { return plan.Section[Spec](g, Section) }

func validate(g *plan.Group) []error {
	s := specOf(g)
	if s == nil {
		return []error{plan.Errorf(g.Pos, "quic", "runner quic needs a quic: section")}
	}
	pos := g.SectionPos[Section]
	errs := append(g.LoopProblems(), g.Templates(pos, plan.RequestFields("group "+g.ID+": quic", s.templateFields(), s.Headers))...)
	for _, e := range s.problems() {
		errs = append(errs, plan.Errorf(pos, "quic", "%s", e))
	}
	return errs
}

// mode returns the effective mode.
func (s *Spec) mode() string {
	switch {
	case s.Mode != "":
		return s.Mode
	case s.URL != "":
		return ModeHTTP3
	}
	return ModeStream
}

func (s *Spec) connection() string {
	if s.Connection == "" {
		return ConnPooled
	}
	return s.Connection
}

// problems lists what is wrong with the section, as messages.
func (s *Spec) problems() []string {
	out := plan.RequestProblems(s.Method, tmpl.Skeletons(s.Headers))
	switch s.mode() {
	case ModeStream:
		if _, _, err := net.SplitHostPort(s.Addr); err != nil {
			out = append(out, fmt.Sprintf("addr %q: want host:port", s.Addr))
		}
		if s.Request == "" {
			out = append(out, "request is required in stream mode")
		}
	case ModeHTTP3:
		if u, err := url.Parse(tmpl.Skeleton(s.URL)); err != nil || u.Scheme != "https" || u.Host == "" {
			out = append(out, fmt.Sprintf("url %q: want an https:// URL", s.URL))
		} else if tmpl.HostTemplated(s.URL) {
			out = append(out, fmt.Sprintf("url %q: %s", s.URL, tmpl.HostTemplatedProblem))
		}
	default:
		out = append(out, fmt.Sprintf("mode %q: want stream or http3", s.Mode))
	}
	switch s.connection() {
	case ConnPooled, ConnPerWorker, ConnFresh:
	default:
		out = append(out, fmt.Sprintf("connection %q: want pooled, per-worker or fresh", s.Connection))
	}
	if s.Pool < 0 {
		out = append(out, "pool must not be negative")
	}
	return out
}

// target returns the UDP host:port and the TLS server name.
func (s *Spec) target() (addr, serverName string, err error) {
	addr = s.Addr
	if s.mode() == ModeHTTP3 {
		u, err := url.Parse(tmpl.Skeleton(s.URL))
		if err != nil {
			return "", "", fmt.Errorf("parsing url %q: %w", s.URL, err)
		}
		addr = u.Host
		if u.Port() == "" {
			addr = net.JoinHostPort(u.Hostname(), "443")
		}
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", "", fmt.Errorf("parsing address %q: %w", addr, err)
	}
	if s.ServerName != "" {
		host = s.ServerName
	}
	return addr, host, nil
}
