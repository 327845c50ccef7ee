// Package action does the one-off things a plan's `actions:` ask for in
// the middle of a step: run a command, send an HTTP request, run a SQL
// statement. Each is bounded by a timeout, keeps at most MaxOutput bytes
// of what it printed or received, and reports an artifacts.ActionResult;
// the engine schedules them, signals and restarts targets, and redacts
// what it records.
package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/reap"
	"github.com/benchtui/benchtui/runners/watch"
)

// MaxOutput bounds the output an action's result keeps.
const MaxOutput = 4 << 10

// waitDelay is how long a killed command's output pipes may stay open (a
// grandchild holding them) before Wait gives up on them.
const waitDelay = time.Second

// Exec runs argv (no shell) in its own process group, tied to benchtui's
// life; at the timeout the whole group is killed. The result holds the
// exit code and the start of the combined output.
func Exec(ctx context.Context, argv []string, timeout time.Duration) artifacts.ActionResult {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out bounded
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = reap.OwnGroup(nil)
	cmd.Cancel = func() error { return reap.KillGroup(cmd.Process) }
	cmd.WaitDelay = waitDelay
	res := artifacts.ActionResult{Kind: plan.ActionExec}
	release, err := watch.StartTied(cmd)
	if err != nil {
		res.Error = fmt.Sprintf("starting %s: %v", argv[0], err)
		return done(res, start)
	}
	err = cmd.Wait()
	release()
	_ = reap.KillGroup(cmd.Process) // what the command left behind in its group
	code := cmd.ProcessState.ExitCode()
	res.ExitCode, res.PID, res.Output = &code, cmd.Process.Pid, out.String()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.Error = fmt.Sprintf("timeout after %s: killed", timeout)
	case err != nil && !errors.As(err, new(*exec.ExitError)):
		res.Error = err.Error()
	case code != 0:
		res.Error = watch.ExitStatus(cmd.ProcessState)
	default:
		res.OK = true
	}
	return done(res, start)
}

// HTTP sends the request of spec with client; success is an expected
// status (any 2xx or 3xx by default). The result keeps the status and the
// start of the body.
func HTTP(ctx context.Context, client *http.Client, method string, spec *plan.ActionHTTP, timeout time.Duration) artifacts.ActionResult {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := artifacts.ActionResult{Kind: plan.ActionHTTPK}
	req, err := http.NewRequestWithContext(ctx, method, spec.URL, strings.NewReader(spec.Body))
	if err != nil {
		res.Error = err.Error()
		return done(res, start)
	}
	for k, v := range spec.Headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		res.Error = err.Error()
		if ctx.Err() == context.DeadlineExceeded {
			res.Error = fmt.Sprintf("timeout after %s: %v", timeout, err)
		}
		return done(res, start)
	}
	defer resp.Body.Close()
	var body bounded
	_, _ = io.Copy(&body, io.LimitReader(resp.Body, 1<<20)) // read on, so the connection is reused
	res.Status, res.Output = resp.StatusCode, body.String()
	res.OK = expected(resp.StatusCode, spec.ExpectStatus)
	if !res.OK {
		res.Error = "unexpected status " + resp.Status
	}
	return done(res, start)
}

func expected(status int, want []int) bool {
	if len(want) > 0 {
		return slices.Contains(want, status)
	}
	return status >= 200 && status < 400
}

// SQL runs statement on a connection to dsn, opened for it, and reports
// the rows it affected.
func SQL(ctx context.Context, dsn, statement string, timeout time.Duration) artifacts.ActionResult {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := artifacts.ActionResult{Kind: plan.ActionSQL}
	conn, err := connectCancelling(ctx, dsn)
	if err != nil {
		res.Error = fmt.Sprintf("connecting: %v", err)
		return done(res, start)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		_ = conn.Close(closeCtx)
		cancel()
	}()
	// The simple protocol: one round trip, and a statement list works.
	tag, err := conn.Exec(ctx, statement, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		res.Error = err.Error()
		return done(res, start)
	}
	rows := tag.RowsAffected()
	res.Rows, res.OK = &rows, true
	return done(res, start)
}

// cancelWait bounds how long a cancelled statement is given to stop on
// the server before its connection is dropped.
const cancelWait = 5 * time.Second

// connectCancelling connects to dsn so that cancelling the context of a
// statement cancels it on the server and waits (up to cancelWait) for the
// server to say it stopped. pgx's default only drops the connection, and
// the server goes on with a statement that sends nothing until it ends: a
// backfill procedure cut at its step's end ran on into the next step's
// setup, and one of them died of a deadlock.
func connectCancelling(ctx context.Context, dsn string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelWait}
	}
	return pgx.ConnectConfig(ctx, cfg)
}

func done(res artifacts.ActionResult, start time.Time) artifacts.ActionResult {
	res.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	return res
}

// bounded keeps the first MaxOutput bytes written to it and counts the
// rest. It is not safe for concurrent use; os/exec copies a command's
// stdout and stderr, when both are this one writer, from one goroutine.
type bounded struct {
	buf     bytes.Buffer
	dropped int
}

func (b *bounded) Write(p []byte) (int, error) {
	room := MaxOutput - b.buf.Len()
	if room >= len(p) {
		return b.buf.Write(p)
	}
	b.buf.Write(p[:max(room, 0)])
	b.dropped += len(p) - max(room, 0)
	return len(p), nil
}

func (b *bounded) String() string {
	s := strings.ToValidUTF8(b.buf.String(), "")
	if b.dropped > 0 {
		s += fmt.Sprintf("… (%d more bytes)", b.dropped)
	}
	return s
}
