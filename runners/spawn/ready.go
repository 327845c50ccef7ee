package spawn

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/benchtui/benchtui/runners/plan"
)

// pollEvery is the period of the TCP and HTTP readiness probes, and so the
// resolution of the time to ready they measure. A probe of a port nobody
// listens on is refused in microseconds on loopback.
const pollEvery = time.Millisecond

// parseReady parses a spawn `ready:`: exit (the default, also when
// empty), tcp://host:port, http(s)://… or stdout:/regex/.
func parseReady(s string) (plan.Ready, error) {
	r, err := plan.ParseReady(s, true)
	if err != nil {
		return plan.Ready{}, err
	}
	if r.Kind == plan.ReadyNone {
		r.Kind = plan.ReadyExit
	}
	return r, nil
}

// errNotReady is a probe's answer while the process is not up yet.
var errNotReady = errors.New("not ready")

// probe asks once whether the process is ready; nil means it is.
func (r *Runner) probe(ctx context.Context) error {
	switch r.ready.Kind {
	case plan.ReadyTCP:
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", r.ready.Addr)
		if err != nil {
			return errNotReady
		}
		return c.Close()
	case plan.ReadyHTTP:
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.ready.URL, nil)
		if err != nil {
			return fmt.Errorf("building ready probe: %w", err)
		}
		resp, err := r.client.Do(req)
		if err != nil {
			return errNotReady
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return errNotReady
		}
		return nil
	}
	return fmt.Errorf("probe: ready kind %d is not probed", r.ready.Kind)
}

// pollReady probes every pollEvery until the process is ready (""), exits
// (its exit kind), the deadline passes ("timeout") or ctx ends
// ("cancelled").
func (r *Runner) pollReady(ctx context.Context, c *child, deadline time.Time) string {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		err := r.probe(ctx)
		if err == nil {
			return ""
		}
		if !errors.Is(err, errNotReady) {
			return "probe_failed"
		}
		select {
		case <-c.exited:
			return c.earlyExitKind()
		case <-ctx.Done():
			return ctxKind(ctx)
		case <-tick.C:
		}
	}
}

// scanReady reads the process's stdout until a line matches, the process
// closes it (its exit kind), the deadline passes or ctx ends.
func (r *Runner) scanReady(ctx context.Context, c *child, out *os.File, deadline time.Time) string {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	// A pipe read returns at its deadline, so ctx's end is turned into one.
	stop := context.AfterFunc(ctx, func() { _ = out.SetReadDeadline(time.Now()) })
	defer stop()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if r.ready.Pattern.Match(sc.Bytes()) {
			return ""
		}
	}
	if ctx.Err() != nil {
		return ctxKind(ctx)
	}
	// EOF: every writer closed stdout, normally because the process exited.
	select {
	case <-c.exited:
		return c.earlyExitKind()
	case <-ctx.Done():
		return ctxKind(ctx)
	}
}

// ctxKind names why ctx ended: its own deadline (the cycle's timeout) or
// the step's end.
func ctxKind(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return kindTimeout
	}
	return kindCancelled
}
