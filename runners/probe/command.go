package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/benchtui/benchtui/runners/reap"
	"github.com/benchtui/benchtui/runners/watch"
)

// waitDelay bounds the wait for a killed command's pipes: a grandchild
// that kept stdout open must not hold the read past its timeout.
const waitDelay = time.Second

// commandReader runs a command at each read; its stdout is one number.
type commandReader struct{ argv []string }

func (r *commandReader) Read(ctx context.Context) (float64, error) {
	res, err := RunCommand(ctx, r.argv)
	if err != nil {
		return 0, err
	}
	if err := res.Failure(r.argv[0]); err != nil {
		return 0, err
	}
	return parseNumber(res.Stdout)
}

func (r *commandReader) Close() error { return nil }

// maxStderrBytes is how much of a command's stderr is kept, for its
// first line in a message.
const maxStderrBytes = 512

// CommandResult is what a command run by RunCommand left: its stdout (at
// most MaxOutputBytes), its exit status and the first line of its stderr
// (at most 200 bytes).
type CommandResult struct {
	Stdout     string
	ExitStatus int
	Stderr     string
}

// Failure is nil when the command exited 0, else an error naming
// program, the exit status and the first line of stderr.
func (r CommandResult) Failure(program string) error {
	switch {
	case r.ExitStatus == 0:
		return nil
	case r.Stderr != "":
		return fmt.Errorf("%s: exit status %d: %s", program, r.ExitStatus, r.Stderr)
	}
	return fmt.Errorf("%s: exit status %d", program, r.ExitStatus)
}

// RunCommand runs argv (no shell) in a process group of its own, tied to
// benchtui's life, until it exits or ctx ends: then it and all it started
// are killed. An exit status other than 0 is the result's, not an error;
// a command that could not start, was killed or wrote more than
// MaxOutputBytes is an error.
func RunCommand(ctx context.Context, argv []string) (CommandResult, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	out := &capped{max: MaxOutputBytes}
	stderr := &capped{max: maxStderrBytes}
	cmd.Stdout, cmd.Stderr = out, stderr
	// In a process group of its own, tied to benchtui's life: the timeout
	// kills the command and all it started, and so does its end (a
	// background child it left).
	cmd.Cancel = func() error { return reap.KillGroup(cmd.Process) }
	cmd.WaitDelay = waitDelay
	err := watch.RunTied(cmd)
	_ = reap.KillGroup(cmd.Process)
	res := CommandResult{Stdout: out.buf.String(), Stderr: firstLine(strings.TrimSpace(stderr.buf.String()))}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("%s: killed after its timeout", argv[0])
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		res.ExitStatus = exit.ExitCode()
	case err != nil:
		return res, fmt.Errorf("%s: %w", argv[0], err)
	}
	if out.over {
		return res, fmt.Errorf("%s: output over %d bytes: refused", argv[0], MaxOutputBytes)
	}
	return res, nil
}

// capped keeps the first max bytes written to it and notes that more came;
// it never fails a write, so the command is not killed by a broken pipe.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if len(p) > room {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}
