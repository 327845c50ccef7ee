package watch

import (
	"context"
	"fmt"
	"os/exec"
	"time"
)

// Exit is how a watched process ended, once it has: Exited is closed then
// and ExitStatus says how. Process embeds it, and so does a runner's own
// server (the embedded Postgres), which makes them runners.TargetHandle
// exits.
type Exit struct {
	done   chan struct{}
	status string    // set before done is closed
	at     time.Time // when the exit was seen; set before done is closed
}

func newExit() *Exit { return &Exit{done: make(chan struct{})} }

// end records status and closes done; it is called once.
func (x *Exit) end(status string) {
	x.status, x.at = status, time.Now()
	close(x.done)
}

// ExitedAt is when the exit was seen (reaped, or found gone); zero while
// the process runs. A step that handles the exit late still tells when
// it came.
func (x *Exit) ExitedAt() time.Time {
	select {
	case <-x.done:
		return x.at
	default:
		return time.Time{}
	}
}

// Exited is closed when the process has exited: for a child once it is
// reaped, for an attached process when a periodic check finds it gone (or
// a zombie), for a cgroup when it holds no process.
func (x *Exit) Exited() <-chan struct{} { return x.done }

// ExitStatus says how the process exited ("exit 0", "exit 3", "signal
// killed"); for an attached process, whose parent benchtui is not, the
// status read from /proc while it was a zombie, marked "(attached; …)",
// else StatusUnknown; "" while it runs.
func (x *Exit) ExitStatus() string {
	select {
	case <-x.done:
		return x.status
	default:
		return ""
	}
}

// SpawnTied starts cmd tied to benchtui's life (StartTied) and reaps it in
// a goroutine; the Exit ends once it is reaped.
func SpawnTied(cmd *exec.Cmd) (*Exit, error) {
	release, err := StartTied(cmd)
	if err != nil {
		return nil, err
	}
	x := newExit()
	go func() {
		_ = cmd.Wait() // the status is in ProcessState
		release()
		x.end(ExitStatus(cmd.ProcessState))
	}()
	return x, nil
}

// PollReady calls ready every 20 ms until it reports true, and fails when
// the process exits first or ctx ends; what names the process in errors
// ("the embedded redis").
func (x *Exit) PollReady(ctx context.Context, what string, ready func() bool) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if ready() {
			return nil
		}
		select {
		case <-x.Exited():
			return fmt.Errorf("%s exited while starting (%s)", what, x.ExitStatus())
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-tick.C:
		}
	}
}
