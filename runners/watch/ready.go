package watch

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"time"

	"github.com/benchtui/benchtui/runners/plan"
)

// Readiness polling: the probes (a connect, a GET, a read of a file, all
// cheap) come a quarter of the time waited so far apart, from every
// readyFirstPoll up to every readyPoll, so a target found ready is found
// at most a quarter late (a server is often ready within tens of
// milliseconds, and every millisecond past that is added to the run);
// readyProbeTimeout bounds one probe.
const (
	readyFirstPoll    = 5 * time.Millisecond
	readyPoll         = 50 * time.Millisecond
	readyProbeTimeout = time.Second
)

// errReadyTimeout is the cause of the readiness context ending on time.
var errReadyTimeout = errors.New("ready timeout")

// NewProbeTransport returns the transport of an HTTP readiness probe. It
// keeps no connection alive, so each probe connects afresh (as a client's
// first request would) and leaves nothing idle behind. A probe only asks
// whether the process answers and sends nothing secret, and local servers
// often have self-signed certificates: it does not verify them.
func NewProbeTransport() *http.Transport {
	return &http.Transport{
		DisableKeepAlives: true,
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // readiness probe only
	}
}

// probe reports nil once the target is ready.
type probe func(ctx context.Context, p *Process) error

// parseReady turns a Config.Ready string into its probe.
func parseReady(s string) (probe, error) {
	r, err := plan.ParseReady(s, false)
	if err != nil {
		return nil, err
	}
	switch r.Kind {
	case plan.ReadyHTTP:
		return httpProbe(r.URL), nil
	case plan.ReadyTCP:
		return tcpProbe(r.Addr), nil
	case plan.ReadyStdout:
		return stdoutProbe(r.Pattern), nil
	}
	return func(context.Context, *Process) error { return nil }, nil
}

// httpProbe is ready on a 2xx answer to a GET of url.
func httpProbe(url string) probe {
	return func(ctx context.Context, _ *Process) error {
		// A fresh transport per probe leaves no goroutine behind; a probe
		// runs a few times a second.
		tr := NewProbeTransport()
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr, Timeout: readyProbeTimeout}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("building request to %s: %w", url, err)
		}
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("probing %s: %w", url, err)
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return fmt.Errorf("probing %s: status %s", url, resp.Status)
		}
		return nil
	}
}

// tcpProbe is ready once addr accepts a connection.
func tcpProbe(addr string) probe {
	return func(ctx context.Context, _ *Process) error {
		d := net.Dialer{Timeout: readyProbeTimeout}
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return fmt.Errorf("probing tcp %s: %w", addr, err)
		}
		return c.Close()
	}
}

// stdoutProbe is ready once a line of the target's log matches re. It reads
// the log incrementally, keeping an unfinished last line for the next poll.
func stdoutProbe(re *regexp.Regexp) probe {
	var offset int64
	var partial []byte
	return func(_ context.Context, p *Process) error {
		if p.logPath == "" {
			return fmt.Errorf("waiting for output /%s/: the target is not spawned", re)
		}
		b, err := readFrom(p.logPath, offset)
		if err != nil {
			return err
		}
		offset += int64(len(b))
		partial = append(partial, b...)
		for {
			i := bytes.IndexByte(partial, '\n')
			if i < 0 {
				break
			}
			if re.Match(partial[:i]) {
				return nil
			}
			partial = partial[i+1:]
		}
		return fmt.Errorf("no line of output matches /%s/ yet", re)
	}
}

// readFrom reads the file at path from offset to its end.
func readFrom(path string, offset int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, fmt.Errorf("seeking in %s: %w", path, err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return b, nil
}

// waitReady polls probe until it passes, the target exits, ReadyTimeout
// passes or ctx ends.
func (p *Process) waitReady(ctx context.Context, ready probe) error {
	ctx, cancel := context.WithTimeoutCause(ctx, p.cfg.ReadyTimeout, errReadyTimeout)
	defer cancel()
	start := time.Now()
	timer := time.NewTimer(readyFirstPoll)
	defer timer.Stop()
	var last error
	for {
		err := ready(ctx, p)
		if err == nil {
			return nil
		}
		// A probe cut short by the deadline says less than the one before.
		if last == nil || ctx.Err() == nil {
			last = err
		}
		select {
		case <-p.done:
			return fmt.Errorf("target exited (%s) before it was ready (%s)", p.status, p.cfg.Ready)
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), errReadyTimeout) {
				return fmt.Errorf("not ready (%s) within %s: %w", p.cfg.Ready, p.cfg.ReadyTimeout, last)
			}
			return fmt.Errorf("waiting for readiness (%s): %w", p.cfg.Ready, context.Cause(ctx))
		case <-timer.C:
		}
		timer.Reset(min(max(time.Since(start)/4, readyFirstPoll), readyPoll))
	}
}
