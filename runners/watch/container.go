package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchtui/benchtui/runners/plan"
)

// DefaultRuntime is the runtime of a container target that names none.
const DefaultRuntime = "docker"

// Bounds of a container target (its name's: plan.MaxContainerName).
const (
	// inspectTimeout bounds the runtime's inspect.
	inspectTimeout = 10 * time.Second
	// maxInspectOutput bounds what is kept of inspect's stdout and stderr.
	maxInspectOutput = 4 << 10
)

// containerProblems are the problems of c's container and runtime.
func (c Config) containerProblems() []error {
	var errs []error
	if c.Runtime != "" && c.Container == "" {
		errs = append(errs, fmt.Errorf("target %q: runtime is for a container target", c.Name))
	}
	if c.Runtime != "" && !slices.Contains(plan.ContainerRuntimes, c.Runtime) {
		errs = append(errs, fmt.Errorf("target %q: runtime %q: want one of %s", c.Name, c.Runtime, strings.Join(plan.ContainerRuntimes, ", ")))
	}
	if c.Container != "" {
		if problem := plan.ContainerNameProblem(c.Container); problem != "" {
			errs = append(errs, fmt.Errorf("target %q: container name %q %s", c.Name, c.Container, problem))
		}
	}
	return errs
}

// ContainerPID asks runtime (DefaultRuntime when "") for the main PID of
// the running container name: no shell, at most inspectTimeout, output
// bounded. A container that is not running (PID 0) is an error.
func ContainerPID(ctx context.Context, runtime, name string) (int, error) {
	if runtime == "" {
		runtime = DefaultRuntime
	}
	args := []string{"inspect", "--format", "{{.State.Pid}}", name}
	cmdline := fmt.Sprintf("%s inspect --format '{{.State.Pid}}' %s", runtime, name)
	path, err := exec.LookPath(runtime)
	if err != nil {
		return 0, fmt.Errorf("runtime %s not found in PATH: %w", runtime, err)
	}
	ctx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	out, errOut := &boundedBuffer{max: maxInspectOutput}, &boundedBuffer{max: maxInspectOutput}
	cmd.Stdout, cmd.Stderr = out, errOut
	cmd.WaitDelay = time.Second // a grandchild holding the pipes does not hold us
	if err := RunTied(cmd); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer in %s", inspectTimeout)
		}
		if msg := bytes.TrimSpace(errOut.b); len(msg) > 0 {
			err = fmt.Errorf("%w: %q", err, msg)
		}
		return 0, fmt.Errorf("running %s: %w", cmdline, err)
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(out.b)))
	if err != nil {
		return 0, fmt.Errorf("running %s: its output %q is not a PID", cmdline, bytes.TrimSpace(out.b))
	}
	if pid <= 0 {
		return 0, fmt.Errorf("container %s is not running (pid %d, from %s)", name, pid, cmdline)
	}
	return pid, nil
}

// boundedBuffer keeps the first max bytes written to it and drops the
// rest, so a runaway command cannot fill benchtui's memory.
type boundedBuffer struct {
	b   []byte
	max int
}

func (w *boundedBuffer) Write(p []byte) (int, error) {
	if room := w.max - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
