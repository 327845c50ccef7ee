package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/runners/reap"
)

// tailLineCount is how many lines of its log a readiness error shows.
const tailLineCount = 10

// Start spawns or attaches to the target of cfg and waits until it is
// ready. A spawned target that is not ready in time, or exits first, is
// stopped, and the error names it and holds the last lines of its log. ctx
// bounds only the wait for readiness, not the target's life: call Stop.
func Start(ctx context.Context, cfg Config) (*Process, error) {
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("starting target: %w", errors.Join(errs...))
	}
	cfg = cfg.withDefaults()
	probe, err := parseReady(cfg.Ready)
	if err != nil {
		return nil, fmt.Errorf("starting target %q: %w", cfg.Name, err)
	}
	var p *Process
	if len(cfg.Command) > 0 {
		p, err = spawn(cfg)
	} else {
		p, err = attach(cfg)
	}
	if err != nil {
		return nil, err
	}
	if err := p.waitReady(ctx, probe); err != nil {
		return nil, p.notReady(err)
	}
	if err := p.startLogSource(); err != nil {
		return nil, errors.Join(err, p.Stop())
	}
	return p, nil
}

// notReady stops p and builds the error of a target that never got ready.
func (p *Process) notReady(cause error) error {
	if stopErr := p.Stop(); stopErr != nil {
		cause = errors.Join(cause, stopErr)
	}
	if p.logPath == "" {
		return fmt.Errorf("starting target %q: %w", p.cfg.Name, cause)
	}
	tail, err := tailLines(p.logPath, tailLineCount)
	if err != nil {
		tail = fmt.Sprintf("(reading log: %v)", err)
	}
	return fmt.Errorf("starting target %q: %w\nlast lines of %s:\n%s", p.cfg.Name, cause, p.logPath, tail)
}

// spawn starts cfg.Command in its own process group, tied to benchtui's
// life, with its output in the log file, and reaps it in a goroutine that
// ends p's Exit.
func spawn(cfg Config) (*Process, error) {
	group, err := groupAttr()
	if err != nil {
		return nil, fmt.Errorf("spawning target %q: %w", cfg.Name, err)
	}
	if err := os.MkdirAll(cfg.LogDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating log folder of target %q: %w", cfg.Name, err)
	}
	logPath := filepath.Join(cfg.LogDir, strings.ReplaceAll(cfg.Name, "/", "_")+".log")
	// The child writes straight to the file, not to a pipe: a stalled
	// benchtui can never block the target's writes.
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("creating log of target %q: %w", cfg.Name, err)
	}
	defer logFile.Close() // the child holds its own copy
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Dir = cfg.Dir
	cmd.Env = mergeEnv(os.Environ(), cfg.Env)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = group
	exit, err := SpawnTied(cmd) // dies with benchtui, even on SIGKILL
	if err != nil {
		return nil, fmt.Errorf("spawning target %q (%s): %w", cfg.Name, strings.Join(cfg.Command, " "), err)
	}
	return &Process{cfg: cfg, pid: cmd.Process.Pid, spawned: true, logPath: logPath, Exit: exit}, nil
}

// mergeEnv appends env, sorted, to base; later entries win in exec.
func mergeEnv(base []string, env map[string]string) []string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := append([]string(nil), base...)
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out
}

// ExitStatus describes how a reaped process ended: "exit 3", "signal
// killed"; "exited" without a state.
func ExitStatus(st *os.ProcessState) string {
	if st == nil {
		return "exited"
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exit %d", st.ExitCode())
}

// stopSpawned sends SIGTERM to the group, SIGKILL after the grace period,
// and waits for the reaper. Then it sends SIGKILL to the group again, so
// no child the target left behind keeps a port or the log open. When the
// target had exited before Stop, that sweep is done only while a member of
// the group lives (reap.KillLeftGroup): an empty group's id may belong to a
// new process by then.
func (p *Process) stopSpawned() error {
	select {
	case <-p.done:
		if err := reap.KillLeftGroup(p.pid); err != nil {
			return fmt.Errorf("stopping target %q: %w", p.cfg.Name, err)
		}
		return nil
	default:
	}
	var errs []error
	if err := killGroup(p.pid, syscall.SIGTERM); err != nil {
		errs = append(errs, err)
	}
	grace := time.NewTimer(p.cfg.StopGrace)
	defer grace.Stop()
	select {
	case <-p.done:
	case <-grace.C:
		if err := killGroup(p.pid, syscall.SIGKILL); err != nil {
			errs = append(errs, err)
		}
		<-p.done
	}
	if err := killGroup(p.pid, syscall.SIGKILL); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("stopping target %q: %w", p.cfg.Name, errors.Join(errs...))
	}
	return nil
}

// killGroup signals process group pgid; a group already gone is no error.
func killGroup(pgid int, sig syscall.Signal) error {
	err := kill(-pgid, sig)
	if err == nil || errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return fmt.Errorf("sending %v to process group %d: %w", sig, pgid, err)
}

// tailLines returns the last n lines of the file at path (from its last
// 64 KiB).
func tailLines(path string, n int) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	const window = 64 << 10
	if st, err := f.Stat(); err == nil && st.Size() > window {
		if _, err := f.Seek(st.Size()-window, io.SeekStart); err != nil {
			return "", fmt.Errorf("seeking in %s: %w", path, err)
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n"), nil
}
