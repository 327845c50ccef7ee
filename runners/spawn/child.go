package spawn

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Error kinds of a cycle besides exit_<code> and signal_<name>.
const (
	kindTimeout     = "timeout"
	kindStartFailed = "start_failed"
	kindCancelled   = "cancelled" // the step ended mid-cycle; not recorded
)

// child is one started cycle process, the leader of its own process group.
// Signals go to the whole group, and only while the leader is not reaped:
// until then its pid, and so the group id, cannot be reused.
//
// It is started with syscall.ForkExec and reaped with Wait4 rather than
// through os/exec: that skips the pidfd, the os.Process bookkeeping and
// the exec.Cmd plumbing, some 30 µs a cycle, which is 5 % of a /bin/true
// start and the difference to hyperfine (docs/perf-spawn.md).
type child struct {
	pid    int           // also the group id
	exited chan struct{} // closed once reaped, by wait

	mu       sync.Mutex
	reaped   bool
	timedOut bool
	status   syscall.WaitStatus
}

// proc is what a cycle starts: the program, its argv and environment,
// its folder, and its stdin, stdout and stderr.
type proc struct {
	path  string
	argv  []string
	env   []string
	dir   string
	files [3]*os.File
}

// startChild starts p in a new process group.
func startChild(p *proc) (*child, error) {
	pid, err := forkGroup(p)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", p.path, err)
	}
	return &child{pid: pid, exited: make(chan struct{})}, nil
}

// wait reaps the leader and closes exited.
func (c *child) wait() {
	ws := waitExit(c.pid)
	c.mu.Lock()
	c.reaped, c.status = true, ws
	c.mu.Unlock()
	close(c.exited)
}

// signal sends sig to the group while its leader is not reaped.
func (c *child) signal(sig syscall.Signal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.reaped {
		killGroup(c.pid, sig)
	}
}

// timeout kills the group because the cycle ran out of time.
func (c *child) timeout() {
	c.mu.Lock()
	c.timedOut = true
	c.mu.Unlock()
	c.signal(syscall.SIGKILL)
}

// stop ends a running leader: SIGTERM to the group, SIGKILL after grace,
// and waits until it is reaped. It reports whether SIGKILL was needed.
func (c *child) stop(grace time.Duration) bool {
	select {
	case <-c.exited:
		return false
	default:
	}
	c.signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-c.exited:
		return false
	case <-t.C:
	}
	c.signal(syscall.SIGKILL)
	<-c.exited
	return true
}

// sweep kills what is left of the group once the leader is reaped: a
// grandchild that outlived it would otherwise keep running (it is not our
// child, so it can never be our zombie). The group id cannot have been
// reused while any member lives.
func (c *child) sweep() {
	killGroup(c.pid, syscall.SIGKILL) // ESRCH: nothing was left
}

// exitKind names how the reaped leader ended: "" for exit 0, then
// timeout, exit_<code> or signal_<name>.
func (c *child) exitKind() string {
	c.mu.Lock()
	timedOut, ws := c.timedOut, c.status
	c.mu.Unlock()
	if timedOut {
		return kindTimeout
	}
	return statusKind(ws)
}

// earlyExitKind names how a leader ended before it was ready: as
// exitKind, but exit 0 is an error too (exit_0).
func (c *child) earlyExitKind() string {
	if k := c.exitKind(); k != "" {
		return k
	}
	return "exit_0"
}

// statusKind names a wait status: "" for exit 0.
func statusKind(ws syscall.WaitStatus) string {
	switch {
	case ws.Signaled():
		return "signal_" + signalName(ws.Signal())
	case ws.ExitStatus() == 0:
		return ""
	}
	return "exit_" + strconv.Itoa(ws.ExitStatus())
}

// signalNames names the signals ParseSignal knows: these, and on Unix
// unixSignalNames (windows has no SIGUSR1, SIGUSR2 or SIGXCPU).
var signalNames = func() map[syscall.Signal]string {
	m := map[syscall.Signal]string{
		syscall.SIGHUP: "hup", syscall.SIGINT: "int", syscall.SIGQUIT: "quit", syscall.SIGILL: "ill",
		syscall.SIGTRAP: "trap", syscall.SIGABRT: "abrt", syscall.SIGBUS: "bus", syscall.SIGFPE: "fpe",
		syscall.SIGKILL: "kill", syscall.SIGSEGV: "segv",
		syscall.SIGPIPE: "pipe", syscall.SIGALRM: "alrm", syscall.SIGTERM: "term",
	}
	maps.Copy(m, unixSignalNames)
	return m
}()

// signalName is the short lower-case name of sig ("term", "kill"), or its
// number.
func signalName(sig syscall.Signal) string {
	if n, ok := signalNames[sig]; ok {
		return n
	}
	return strconv.Itoa(int(sig))
}

// ParseSignal reads a signal written as SIGTERM, TERM or term.
func ParseSignal(s string) (syscall.Signal, error) {
	name := s
	if len(name) > 3 && strings.EqualFold(name[:3], "sig") {
		name = name[3:]
	}
	for sig, n := range signalNames {
		if strings.EqualFold(n, name) {
			return sig, nil
		}
	}
	return 0, errors.New("unknown signal " + strconv.Quote(s) + " (want SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2 or SIGKILL)")
}
