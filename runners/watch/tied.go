package watch

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"github.com/benchtui/benchtui/runners/reap"
)

// A tied child dies with benchtui: on Linux it gets a parent-death signal
// (SIGKILL), so a SIGKILL of benchtui leaves no target, demo server or
// embedded Postgres running. The kernel sends that signal when the *thread*
// that forked the child exits, not the process (Go issue 27505), so tied
// children are forked from an OS thread that outlives them: the starter's
// goroutine, locked to its thread while any tied child lives. Elsewhere
// (darwin, windows) StartTied is cmd.Start.

// starter runs fork requests on one locked OS thread. It ends (and its
// thread with it) when no tied child needs it any more.
type starter struct {
	mu   sync.Mutex
	live int // tied children not yet released, plus starts in flight
	reqs chan func()
}

var tiedStarter starter

// StartTied starts cmd tied to benchtui's life (see TieToParent), with
// benchtui's marker in its environment and its reaper started
// (reap.Prepare). The caller calls release once cmd has been waited for;
// until then the forking thread is kept.
func StartTied(cmd *exec.Cmd) (release func(), err error) {
	cmd.SysProcAttr = TieToParent(cmd.SysProcAttr)
	if cmd.Env != nil {
		cmd.Env = reap.Env(cmd.Env)
	}
	reap.Prepare()
	return tiedStarter.do(cmd.Start)
}

// RunTied runs cmd as its Run does, started with StartTied, in a process
// group of its own; for a command made with a context, the context's end
// kills the whole group, not only the command (a build's compilers).
func RunTied(cmd *exec.Cmd) error {
	cmd.SysProcAttr = reap.OwnGroup(cmd.SysProcAttr)
	if cmd.Cancel != nil {
		cmd.Cancel = func() error { return reap.KillGroup(cmd.Process) }
	}
	release, err := StartTied(cmd)
	if err != nil {
		return err
	}
	defer release()
	return cmd.Wait()
}

func (s *starter) do(start func() error) (func(), error) {
	s.mu.Lock()
	if s.live == 0 {
		s.reqs = make(chan func())
		go serveStarts(s.reqs)
	}
	s.live++
	reqs := s.reqs
	s.mu.Unlock()
	done := make(chan error, 1)
	reqs <- func() { done <- start() }
	if err := <-done; err != nil {
		s.release()
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(s.release) }, nil
}

func (s *starter) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live--
	if s.live == 0 {
		close(s.reqs)
	}
}

// serveStarts runs each request on this goroutine's own thread. It never
// unlocks: when reqs is closed the goroutine returns and Go ends the
// thread, which no live tied child depends on by then.
func serveStarts(reqs <-chan func()) {
	runtime.LockOSThread()
	for fn := range reqs {
		fn()
	}
}

// TieToParent returns attr (a new one when nil) set so the child is killed
// when benchtui dies, on Linux; elsewhere attr unchanged. The fork must
// come from a thread that lives until the child is reaped: use StartTied,
// or fork and reap from a goroutine locked to its thread
// (runtime.LockOSThread) for the child's whole life.
func TieToParent(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	setDeathSignal(attr)
	return attr
}
