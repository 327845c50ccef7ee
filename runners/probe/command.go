package probe

import (
	"bytes"
	"context"
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
	cmd := exec.CommandContext(ctx, r.argv[0], r.argv[1:]...)
	out := &capped{max: MaxOutputBytes}
	var stderr capped
	stderr.max = 512
	cmd.Stdout, cmd.Stderr = out, &stderr
	// In a process group of its own, tied to benchtui's life: the timeout
	// kills the command and all it started, and so does its end (a
	// background child it left).
	cmd.Cancel = func() error { return reap.KillGroup(cmd.Process) }
	cmd.WaitDelay = waitDelay
	err := watch.RunTied(cmd)
	_ = reap.KillGroup(cmd.Process)
	switch {
	case ctx.Err() != nil:
		return 0, fmt.Errorf("%s: killed after the probe's timeout", r.argv[0])
	case err != nil:
		msg := strings.TrimSpace(stderr.buf.String())
		if msg != "" {
			return 0, fmt.Errorf("%s: %w: %s", r.argv[0], err, firstLine(msg))
		}
		return 0, fmt.Errorf("%s: %w", r.argv[0], err)
	case out.over:
		return 0, fmt.Errorf("%s: output over %d bytes: refused", r.argv[0], MaxOutputBytes)
	}
	return parseNumber(out.buf.String())
}

func (r *commandReader) Close() error { return nil }

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
