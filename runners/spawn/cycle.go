package spawn

import (
	"context"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/runners/plan"
)

// cycleResult is how one cycle went.
type cycleResult struct {
	start, end time.Time // end: ready, or the failure
	kind       string    // "" when ready in time
	stop       time.Duration
	killed     bool // the ready process needed SIGKILL to stop
}

// proc describes one cycle's process; the path was resolved once in
// Prepare, so a cycle does no lookup.
func (r *Runner) proc() *proc {
	return &proc{
		path: r.path, argv: r.spec.Command, env: r.env, dir: r.spec.Dir,
		files: [3]*os.File{r.devNull, r.devNull, r.devNull},
	}
}

// cycle runs one cycle, ready: exit or otherwise. Its goroutine keeps its
// OS thread until the cycle's process is reaped: the process is tied to
// benchtui's life by a parent-death signal, which the kernel sends when
// the forking thread exits (watch.TieToParent).
func (r *Runner) cycle(ctx context.Context) cycleResult {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if r.ready.Kind == plan.ReadyExit {
		return r.exitCycle(ctx)
	}
	return r.readyCycle(ctx)
}

// exitCycle times the command from start to exit, as hyperfine -N does:
// no goroutine of its own, a timer that kills the group on timeout.
func (r *Runner) exitCycle(ctx context.Context) cycleResult {
	p := r.proc()
	start := time.Now()
	c, err := startChild(p)
	if err != nil {
		return cycleResult{start: start, end: time.Now(), kind: kindStartFailed}
	}
	timer := time.AfterFunc(r.spec.Timeout.D(), c.timeout)
	stopCtx := context.AfterFunc(ctx, func() { c.signal(syscall.SIGKILL) })
	c.wait()
	end := time.Now()
	timer.Stop()
	stopCtx()
	c.sweep()
	res := cycleResult{start: start, end: end, kind: c.exitKind()}
	if ctx.Err() != nil && res.kind != "" {
		res.kind = kindCancelled
	}
	return res
}

// readyCycle times the command from start to ready (a probe or a line of
// its output), then stops it and reaps it.
func (r *Runner) readyCycle(ctx context.Context) cycleResult {
	p := r.proc()
	var out, outW *os.File
	if r.ready.Kind == plan.ReadyStdout {
		var err error
		if out, outW, err = os.Pipe(); err != nil {
			now := time.Now()
			return cycleResult{start: now, end: now, kind: kindStartFailed}
		}
		p.files[1] = outW
	}
	start := time.Now()
	c, err := startChild(p)
	if outW != nil {
		outW.Close() // the child holds its own copy
	}
	if err != nil {
		if out != nil {
			out.Close()
		}
		return cycleResult{start: start, end: time.Now(), kind: kindStartFailed}
	}
	go c.wait()
	deadline := start.Add(r.spec.Timeout.D())
	var kind string
	if out != nil {
		kind = r.scanReady(ctx, c, out, deadline)
	} else {
		kind = r.pollReady(ctx, c, deadline)
	}
	res := cycleResult{start: start, end: time.Now(), kind: kind}
	res.killed = r.finishChild(c, out, kind == kindTimeout)
	res.stop = time.Since(res.end)
	return res
}

// finishChild stops and reaps the cycle's process (killing it at once on
// timeout) while draining its stdout, so a process that writes while it
// shuts down never blocks on a full pipe; then it sweeps the group.
func (r *Runner) finishChild(c *child, out *os.File, timedOut bool) (killed bool) {
	drained := make(chan struct{})
	if out != nil {
		_ = out.SetReadDeadline(time.Time{}) // scanReady may have set one
		go func() {
			_, _ = io.Copy(io.Discard, out)
			close(drained)
		}()
	} else {
		close(drained)
	}
	if timedOut {
		c.timeout()
		<-c.exited
	} else {
		killed = c.stop(r.spec.StopGrace.D())
	}
	c.sweep()
	if out != nil {
		// A grandchild in another group could still hold the pipe open.
		_ = out.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		<-drained
		out.Close()
	}
	return killed
}
