package quicload

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// recorder is what workers record into; *runners.Recorder is one.
type recorder interface {
	Extra(name string, d time.Duration)
	Count(name string, n int64)
}

type nopRecorder struct{}

func (nopRecorder) Extra(string, time.Duration) {}
func (nopRecorder) Count(string, int64)         {}

// Runner is the QUIC runner of one group.
type Runner struct {
	spec    Spec
	mode    string
	policy  string
	tlsConf *tls.Config
	qconf   *quic.Config
	h3      *http3.Transport // settings for the HTTP/3 client connections
	timeout time.Duration
	tpl     *templates // nil without templates or data

	mu    sync.Mutex
	tr    *quic.Transport
	raddr *net.UDPAddr
	pool  []*conn
}

var (
	_ runners.Runner = (*Runner)(nil)
	_ runners.Worker = (*worker)(nil)
)

func newKind(g *plan.Group, _ *runners.RunEnv) (runners.Runner, error) {
	s := specOf(g)
	if s == nil {
		return nil, fmt.Errorf("group %s: no quic section", g.ID)
	}
	return newGroupRunner(*s, g)
}

// New builds a QUIC runner from its section, whose templates read no data
// file. It reads ca_file but opens no connection: Prepare does.
func New(s Spec) (*Runner, error) { return newGroupRunner(s, nil) }

// newGroupRunner builds a QUIC runner; g (nil: none) gives its data file.
func newGroupRunner(s Spec, g *plan.Group) (*Runner, error) {
	if p := s.problems(); len(p) > 0 {
		return nil, fmt.Errorf("quic section: %s", p[0])
	}
	tpl, err := compileTemplates(&s, g)
	if err != nil {
		return nil, fmt.Errorf("quic section: %w", err)
	}
	tlsConf, err := s.tlsConfig()
	if err != nil {
		return nil, err
	}
	r := &Runner{
		spec: s, mode: s.mode(), policy: s.connection(), tlsConf: tlsConf,
		h3:      &http3.Transport{},
		timeout: defaultOpTimeout,
		tpl:     tpl,
	}
	r.qconf = &quic.Config{
		HandshakeIdleTimeout: orDefault(s.HandshakeTimeout.D(), defaultHandshakeTimeout),
		MaxIdleTimeout:       orDefault(s.IdleTimeout.D(), defaultIdleTimeout),
	}
	if r.policy != ConnFresh {
		// Held connections must outlive pauses between operations.
		r.qconf.KeepAlivePeriod = r.qconf.MaxIdleTimeout / 2
	}
	return r, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func (s *Spec) tlsConfig() (*tls.Config, error) {
	_, serverName, err := s.target()
	if err != nil {
		return nil, err
	}
	conf := &tls.Config{
		ServerName:         serverName,
		InsecureSkipVerify: s.InsecureSkipVerify, //nolint:gosec // the plan asks for it
		MinVersion:         tls.VersionTLS13,
	}
	if s.mode() == ModeHTTP3 {
		conf.NextProtos = []string{http3.NextProtoH3}
	} else {
		conf.NextProtos = []string{s.ALPN}
		if s.ALPN == "" {
			conf.NextProtos = []string{DefaultALPN}
		}
	}
	if s.CAFile != "" {
		pem, err := os.ReadFile(s.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca_file %s: no PEM certificate in it", s.CAFile)
		}
		conf.RootCAs = pool
	}
	return conf, nil
}

// Prepare opens the UDP socket and, when pooled, the shared connections,
// before the clock starts.
func (r *Runner) Prepare(ctx context.Context, step *runners.StepEnv) error {
	if step != nil && step.Load.Timeout.D() > 0 {
		r.timeout = step.Load.Timeout.D()
	}
	if step != nil && step.Group != nil && r.tpl != nil {
		r.tpl.step = step.StepValues()
	}
	if step != nil && r.tpl != nil {
		r.tpl.seq.Stripe(step.Shard.Index, step.Shard.Count)
	}
	if err := r.open(); err != nil {
		return err
	}
	if r.policy != ConnPooled {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.pool {
		if r.pool[i] != nil && !r.pool[i].dead() {
			continue
		}
		c, _, err := r.dial(ctx)
		if err != nil {
			return fmt.Errorf("opening pooled QUIC connection %d to %s: %w", i, r.raddr, err)
		}
		r.pool[i] = c
	}
	return nil
}

// open makes the shared UDP transport once.
func (r *Runner) open() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tr != nil {
		return nil
	}
	addr, _, err := r.spec.target()
	if err != nil {
		return err
	}
	raddr, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return fmt.Errorf("resolving %s: %w", addr, err)
	}
	pc, err := net.ListenUDP("udp", nil)
	if err != nil {
		return fmt.Errorf("opening UDP socket: %w", err)
	}
	r.raddr, r.tr = raddr, &quic.Transport{Conn: pc}
	r.pool = make([]*conn, max(1, r.spec.Pool))
	return nil
}

// NewWorker returns worker id; rec receives the "handshake" extra and the
// "reconnects" count. A per-worker connection is opened here when it can
// be, else by the worker's first operation.
func (r *Runner) NewWorker(id int, rec *runners.Recorder) (runners.Worker, error) {
	var rc recorder = nopRecorder{}
	if rec != nil {
		rc = rec
	}
	return r.newWorker(id, rc), nil
}

func (r *Runner) newWorker(id int, rec recorder) *worker {
	w := &worker{r: r, id: id, rec: rec}
	if r.policy == ConnPerWorker && r.tr != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*r.qconf.HandshakeIdleTimeout)
		if c, _, err := r.dial(ctx); err == nil {
			w.own(c)
		}
		cancel()
	}
	return w
}

// Finish has nothing to add: the workers close their own connections.
func (r *Runner) Finish(context.Context, *runners.StepEnv, runners.Summary) (runners.Findings, error) {
	return runners.Findings{}, nil
}

// Close closes the pooled connections and the UDP socket.
func (r *Runner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, c := range r.pool {
		if c != nil {
			c.close()
			r.pool[i] = nil
		}
	}
	if r.tr == nil {
		return nil
	}
	err := r.tr.Close()
	if cerr := r.tr.Conn.Close(); err == nil && cerr != nil && !errors.Is(cerr, net.ErrClosed) {
		err = cerr
	}
	r.tr = nil
	if err != nil {
		return fmt.Errorf("closing QUIC transport: %w", err)
	}
	return nil
}
