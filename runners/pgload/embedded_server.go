package pgload

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/watch"
)

// The postmaster is benchtui's own child, not pg_ctl's daemon: it is tied
// to benchtui's life (watch.StartTied: a SIGKILL of benchtui takes it down,
// and its backends follow their postmaster), and its exit is seen at once,
// so a run can stop on it like on any target's exit.

// startServer starts the postmaster on a free port, trying a few ports (one
// may be taken before postgres binds it), and waits until it accepts
// connections.
func (e *Embedded) startServer(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if e.port, err = runners.FreeLoopbackPort(); err != nil {
			return err
		}
		if err = e.spawnServer(); err != nil {
			return err
		}
		if err = e.waitReady(ctx); err == nil {
			return nil
		}
		e.stopServer()
		if !strings.Contains(e.logTail(), "could not bind") {
			return fmt.Errorf("%w\n%s", err, e.logTail())
		}
	}
	return err
}

// spawnServer starts `postgres -D data -p port`, its output to the log.
func (e *Embedded) spawnServer() error {
	logf, err := os.OpenFile(e.LogFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("opening the embedded postgres log: %w", err)
	}
	defer logf.Close() // the child holds its own copy
	cmd := exec.Command(filepath.Join(e.bin, "postgres"), "-D", e.DataDir(), "-p", strconv.Itoa(e.port))
	cmd.Dir, cmd.Env = e.dir, append(os.Environ(), "LC_ALL=C")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = groupAttr(e.cred)
	exit, err := watch.SpawnTied(cmd)
	if err != nil {
		return fmt.Errorf("starting the embedded postgres: %w", err)
	}
	e.pid, e.Exit = cmd.Process.Pid, exit
	return nil
}

// waitReady polls the postmaster.pid status line, as pg_ctl -w does.
func (e *Embedded) waitReady(ctx context.Context) error {
	return e.PollReady(ctx, "the embedded postgres", func() bool { return serverReady(e.PIDFile(), e.pid) })
}

// serverReady reports whether the pid file is pid's and says "ready".
func serverReady(pidFile string, pid int) bool {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	// Line 1 is the pid, line 8 the status (PM_STATUS_READY is "ready").
	return len(lines) >= 8 && strings.TrimSpace(lines[0]) == strconv.Itoa(pid) &&
		strings.TrimSpace(lines[7]) == "ready"
}

// stopServer shuts the postmaster down in immediate mode (SIGQUIT, as
// pg_ctl -m immediate), SIGKILL after 8 s, and waits until it is reaped.
func (e *Embedded) stopServer() error {
	if e.Exit == nil {
		return nil
	}
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGQUIT, 8 * time.Second}, {syscall.SIGKILL, 5 * time.Second}} {
		if err := kill(e.pid, step.sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("stopping the embedded postgres: %w", err)
		}
		select {
		case <-e.Exited():
			return nil
		case <-time.After(step.wait):
		}
	}
	return fmt.Errorf("embedded postgres pid %d did not exit", e.pid)
}

// Signal sends sig to the postmaster.
func (e *Embedded) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("signalling the embedded postgres: %v is not a syscall.Signal", sig)
	}
	return kill(e.pid, s)
}
