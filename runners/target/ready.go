package target

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
	"strings"
	"time"
)

// Readiness polling: period of the probes and bound of one probe.
const (
	readyPoll         = 50 * time.Millisecond
	readyProbeTimeout = time.Second
)

// errReadyTimeout is the cause of the readiness context ending on time.
var errReadyTimeout = errors.New("ready timeout")

// probe reports nil once the target is ready.
type probe func(ctx context.Context, p *Process) error

// parseReady turns a Config.Ready string into its probe.
func parseReady(ready string) (probe, error) {
	switch {
	case ready == "":
		return func(context.Context, *Process) error { return nil }, nil
	case strings.HasPrefix(ready, "http://"), strings.HasPrefix(ready, "https://"):
		return httpProbe(ready), nil
	case strings.HasPrefix(ready, "tcp://"):
		addr := strings.TrimPrefix(ready, "tcp://")
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("parsing ready %q: %w", ready, err)
		}
		return tcpProbe(addr), nil
	case strings.HasPrefix(ready, "stdout:"):
		expr := strings.TrimPrefix(ready, "stdout:")
		if len(expr) >= 2 && strings.HasPrefix(expr, "/") && strings.HasSuffix(expr, "/") {
			expr = expr[1 : len(expr)-1]
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("parsing ready %q: %w", ready, err)
		}
		return stdoutProbe(re), nil
	}
	return nil, fmt.Errorf("parsing ready %q: want http://, https://, tcp://host:port or stdout:/regex/", ready)
}

// httpProbe is ready on a 2xx answer to a GET of url.
func httpProbe(url string) probe {
	return func(ctx context.Context, _ *Process) error {
		// A fresh transport without keep-alives leaves no idle connection
		// (nor its goroutines) behind; a probe runs a few times a second.
		// The probe only asks whether the target answers, sends nothing
		// secret, and local targets often have self-signed certificates:
		// it does not verify them.
		tr := &http.Transport{
			DisableKeepAlives: true,
			TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // readiness probe only
		}
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
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
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
		case <-p.exited:
			return fmt.Errorf("target exited (%s) before it was ready (%s)", p.status, p.cfg.Ready)
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), errReadyTimeout) {
				return fmt.Errorf("not ready (%s) within %s: %w", p.cfg.Ready, p.cfg.ReadyTimeout, last)
			}
			return fmt.Errorf("waiting for readiness (%s): %w", p.cfg.Ready, context.Cause(ctx))
		case <-tick.C:
		}
	}
}
