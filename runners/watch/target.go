// Package watch is the watched process of a bench (the target): a server that benchtui
// spawns (in its own process group, output to a log file, started only once
// ready) or attaches to (by PID, a pidfile, a cgroup or a container by
// name, resolved to its cgroup), and samples while the load runs: resident
// memory, open fds, threads and CPU, read from /proc (or the cgroup's
// files) directly, so a sample costs tens of microseconds whatever the fd
// count.
//
// The samples of a step go into a History, which keeps memory constant on
// any soak length, and Analyze turns them into the step's
// artifacts.TargetStats: RSS start/peak/end, the RSS slope after warmup and
// over the last window (MB/min), fds per unit of load, mean CPU cores. The
// engine decides whether to extend a soak with ShouldExtend.
//
// Sampling and attaching read /proc and cgroup files, so they need Linux;
// spawning a target in its own process group and signalling it need a Unix.
// Elsewhere (darwin, windows) they return an error wrapping ErrUnsupported.
//
// This package is a leaf: it imports artifacts, never runners.
package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrUnsupported is wrapped by the error of whatever this package cannot do
// on the running system: sampling processes and cgroups and attaching to a
// running process read /proc and need Linux; spawning a target in its own
// process group, signalling it and raising the fd limit need a Unix.
var ErrUnsupported = errors.New("not supported")

// Defaults of Config's zero durations.
const (
	DefaultReadyTimeout = 30 * time.Second
	DefaultSample       = time.Second
	DefaultStopGrace    = 5 * time.Second
)

// Config says which process to watch and how. Exactly one of Command, PID,
// PIDFile, Cgroup and Container is set.
type Config struct {
	// Name names the target in errors and its log file.
	Name string
	// Command is spawned (argv, resolved as os/exec does, relative to Dir).
	Command []string
	// Env is added to benchtui's environment for Command.
	Env map[string]string
	// Dir is Command's working directory.
	Dir string
	// Ready says when the target is ready: "http://…" or "https://…" (a
	// 2xx answer), "tcp://host:port" (a connection), "stdout:/regex/" (a
	// line of its log, where stdout and stderr both go), or empty (at once).
	Ready string
	// ReadyTimeout bounds the wait for Ready (default 30s).
	ReadyTimeout time.Duration
	// PID attaches to a running process.
	PID int
	// PIDFile attaches to the process whose PID is the file's first line
	// (as in Postgres's postmaster.pid).
	PIDFile string
	// Cgroup attaches to a cgroup folder (v2 or v1) and samples it whole.
	Cgroup string
	// Container attaches to a running container by name: Runtime's
	// `inspect` gives its main PID, /proc/PID/cgroup its cgroup folder,
	// which is then watched as Cgroup (container.go).
	Container string
	// Runtime is the container CLI: docker (default), podman or nerdctl.
	Runtime string
	// LogCommand, when set, is spawned once the target is ready (its own
	// process group, tied to benchtui's life) with its stdout and stderr
	// in <LogDir>/<Name>-log.log: the target's log read by a command
	// (`journalctl -f -u UNIT`, `docker logs -f NAME`). Stop stops it.
	LogCommand []string
	// Tree samples the process with all its descendants, summed, PSS and
	// USS included (SampleTree); not with Cgroup, which is whole already.
	Tree bool
	// Sample is the sampling period, also the period at which an attached
	// process is checked for exit (default 1s).
	Sample time.Duration
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL
	// (default 5s).
	StopGrace time.Duration
	// LogDir holds <Name>.log (a '/' in Name becomes '_'), the spawned
	// target's stdout and stderr, truncated at each start (default:
	// benchtui-targets in the temp folder).
	LogDir string
}

// Validate reports every problem of c at once.
func (c Config) Validate() []error {
	var errs []error
	n := 0
	for _, set := range []bool{len(c.Command) > 0, c.PID != 0, c.PIDFile != "", c.Cgroup != "", c.Container != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		errs = append(errs, fmt.Errorf("target %q: exactly one of command, pid, pidfile, cgroup, container must be set (%d are)", c.Name, n))
	}
	if c.Tree && (c.Cgroup != "" || c.Container != "") {
		errs = append(errs, fmt.Errorf("target %q: tree is for a process, a cgroup is sampled whole", c.Name))
	}
	errs = append(errs, c.containerProblems()...)
	if c.PID < 0 {
		errs = append(errs, fmt.Errorf("target %q: pid %d is negative", c.Name, c.PID))
	}
	if _, err := parseReady(c.Ready); err != nil {
		errs = append(errs, fmt.Errorf("target %q: %w", c.Name, err))
	}
	if strings.HasPrefix(c.Ready, "stdout:") && len(c.Command) == 0 {
		errs = append(errs, fmt.Errorf("target %q: ready %q needs a spawned command", c.Name, c.Ready))
	}
	for _, d := range []time.Duration{c.ReadyTimeout, c.Sample, c.StopGrace} {
		if d < 0 {
			errs = append(errs, fmt.Errorf("target %q: negative duration %s", c.Name, d))
		}
	}
	return errs
}

// withDefaults fills the zero fields of c.
func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = "target"
	}
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = DefaultReadyTimeout
	}
	if c.Sample == 0 {
		c.Sample = DefaultSample
	}
	if c.StopGrace == 0 {
		c.StopGrace = DefaultStopGrace
	}
	if c.LogDir == "" {
		c.LogDir = filepath.Join(os.TempDir(), "benchtui-targets")
	}
	return c
}

// Process is a watched target, spawned or attached. Its methods are safe
// for concurrent use.
type Process struct {
	cfg     Config
	pid     int    // 0 for a cgroup
	cgroup  string // set when attached to a cgroup
	spawned bool
	logPath string
	// logSource is the spawned Config.LogCommand, nil without one.
	logSource *Process

	*Exit    // ends when the target has exited
	stopOnce sync.Once
	stopErr  error
	quit     chan struct{} // ends the attach watcher
	watcher  sync.WaitGroup
}

// PID is the watched process's id, 0 for a cgroup.
func (p *Process) PID() int { return p.pid }

// LogPath is the spawned target's log file, "" when attached.
func (p *Process) LogPath() string { return p.logPath }

// LogSource is the process of the target's log command
// (Config.LogCommand), nil without one: its LogPath is the file the
// command's output goes to, its Exited says when it ended.
func (p *Process) LogSource() *Process { return p.logSource }

// Signal sends sig to the target: to its process group when spawned, to
// the process when attached by PID, to every process of a cgroup. An
// attached target that is pid 1, benchtui or its parent, or a cgroup that
// holds one of them, is refused (SignalRefusal).
func (p *Process) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("signalling target %q: %v is not a syscall.Signal", p.cfg.Name, sig)
	}
	if !p.spawned && p.cgroup == "" {
		if err := refusePIDs([]int{p.pid}); err != nil {
			return fmt.Errorf("signalling target %q: %w", p.cfg.Name, err)
		}
	}
	var err error
	switch {
	case p.spawned:
		err = kill(-p.pid, s)
	case p.cgroup != "":
		err = signalCgroup(p.cgroup, s)
	default:
		err = kill(p.pid, s)
	}
	if errors.Is(err, syscall.ESRCH) {
		err = os.ErrProcessDone
	}
	if err != nil {
		return fmt.Errorf("sending %v to target %q: %w", sig, p.cfg.Name, err)
	}
	return nil
}

// Stop ends a spawned target: SIGTERM to its process group, SIGKILL to the
// group after StopGrace, and waits until it is reaped; then it kills what
// is left of the group. For an attached target it only stops watching; the
// process is left running. The log command (Config.LogCommand) is stopped
// after the target, as a spawned target is. Stop may be called more than
// once.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() {
		if p.spawned {
			p.stopErr = p.stopSpawned()
		} else {
			close(p.quit)
			p.watcher.Wait()
		}
		if p.logSource != nil {
			p.stopErr = errors.Join(p.stopErr, p.logSource.Stop())
		}
	})
	return p.stopErr
}

// Sampler returns a new Sampler of the target: its process (the group's
// leader when spawned) or its whole cgroup.
func (p *Process) Sampler() *Sampler {
	if p.cgroup != "" {
		return newSampler(func() (Sample, error) { return SampleCgroup(p.cgroup) })
	}
	if p.cfg.Tree {
		return NewTreeSampler(p.pid)
	}
	return NewSampler(p.pid)
}
