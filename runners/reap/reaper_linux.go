package reap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// reaperGrace bounds the reaper's work once benchtui is gone.
const reaperGrace = 10 * time.Second

// lifeline is the write end of the reaper's pipe: held, never closed,
// until benchtui ends. It is never read: holding it keeps the *os.File
// reachable, so its finalizer cannot close the pipe under the reaper.
//
//lint:ignore U1000 held, not read: see above
var lifeline *os.File

// startReaper starts `benchtui __reaper` with the read end of a pipe
// whose write end only this process holds (it is close-on-exec), in a
// process group of its own (a terminal's Ctrl-C is not for it), its
// stdio on /dev/null and its folder /. It returns the reaper's pid.
func startReaper() (int, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("making its pipe: %w", err)
	}
	defer r.Close()
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{"benchtui", ReaperCommand}
	cmd.ExtraFiles = []*os.File{r}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return 0, err
	}
	lifeline = w
	go func() { _ = cmd.Wait() }() // it ends after benchtui, unless killed
	return cmd.Process.Pid, nil
}

// RunReaper is the reaper, `benchtui __reaper`: it waits until the pipe
// on fd 3 is closed (the benchtui that started it has ended, however it
// ended) and then kills every process that carries the marker of its
// environment, until none is left or reaperGrace has passed. It ignores
// the signals a terminal or a stop sends, and returns the exit code.
func RunReaper() int {
	marker = os.Getenv(MarkerVar)
	if marker == "" {
		return 2
	}
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT)
	if err := awaitLifeline(os.NewFile(3, "lifeline")); err != nil {
		return 2 // not started by benchtui: nothing to sweep
	}
	self.pid = os.Getpid()
	if !endAll(syscall.SIGKILL, reaperGrace, strayFilter{}) {
		return 1
	}
	return 0
}

// awaitLifeline reads f, which must be a pipe, until its end.
func awaitLifeline(f *os.File) error {
	if f == nil {
		return errors.New("no fd 3")
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("fd 3: %w", err)
	}
	if st.Mode()&os.ModeNamedPipe == 0 {
		return errors.New("fd 3 is not a pipe")
	}
	_, err = io.Copy(io.Discard, f)
	return err
}
