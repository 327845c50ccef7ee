package redisload

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/watch"
)

// ErrNoRedis is returned by StartEmbedded when redis-server cannot be
// found.
var ErrNoRedis = errors.New("redis-server not found on PATH: install it, for example with `apt-get install redis-server`")

// embeddedRoot holds the servers' folders, named by owner (ownerPrefix).
const embeddedRoot = "/tmp"

// serverPrefix starts the name of every embedded server's folder.
const serverPrefix = "btredis"

// Embedded is a throwaway redis-server in a temp folder: loopback only, on
// a free port, nothing saved (--save "" --appendonly no). It is benchtui's
// own child, tied to its life (watch.SpawnTied): a SIGKILL of benchtui
// takes it down. Stop it on every way out.
type Embedded struct {
	dir  string
	port int
	pid  int

	// Exit ends when the server has exited (and been reaped).
	*watch.Exit

	stopOnce sync.Once
	stopErr  error
}

// StartEmbedded starts a throwaway redis-server and waits until it answers
// PING, within 30 s or ctx. On error nothing is left behind. It needs a
// Unix: elsewhere it returns an error wrapping watch.ErrUnsupported.
func StartEmbedded(ctx context.Context) (*Embedded, error) {
	if errNoEmbedded != nil {
		return nil, errNoEmbedded
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, ErrNoRedis
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cleanStale(embeddedRoot)
	dir, err := os.MkdirTemp(embeddedRoot, ownerPrefix(os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("creating the embedded redis folder: %w", err)
	}
	e := &Embedded{dir: dir}
	if err := e.start(ctx, bin); err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	return e, nil
}

// start starts the server on a free port, trying a few (one may be taken
// before redis binds it).
func (e *Embedded) start(ctx context.Context, bin string) error {
	var err error
	for range 3 {
		if e.port, err = runners.FreeLoopbackPort(); err != nil {
			return err
		}
		if err = e.spawn(bin); err != nil {
			return err
		}
		if err = e.waitReady(ctx); err == nil {
			return nil
		}
		_ = e.stopServer()
		if !strings.Contains(e.logTail(), "Address already in use") {
			return fmt.Errorf("%w\n%s", err, e.logTail())
		}
	}
	return err
}

func (e *Embedded) spawn(bin string) error {
	cmd := exec.Command(bin, "--port", strconv.Itoa(e.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", e.dir, "--logfile", e.LogFile(),
		"--daemonize", "no", "--protected-mode", "yes")
	cmd.Dir, cmd.Env = e.dir, append(os.Environ(), "LC_ALL=C")
	// Own process group: a Ctrl-C in the terminal reaches benchtui, which
	// stops the server in order.
	cmd.SysProcAttr = groupAttr()
	exit, err := watch.SpawnTied(cmd)
	if err != nil {
		return fmt.Errorf("starting the embedded redis: %w", err)
	}
	e.pid, e.Exit = cmd.Process.Pid, exit
	return nil
}

// waitReady polls with PING until the server answers PONG.
func (e *Embedded) waitReady(ctx context.Context) error {
	return e.PollReady(ctx, "the embedded redis", func() bool { return ping(ctx, e.Addr()) })
}

// ping reports whether addr answers PING with +PONG within a second.
func ping(ctx context.Context, addr string) bool {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReaderSize(c, 64).ReadString('\n')
	return err == nil && strings.TrimSpace(line) == "+PONG"
}

// Addr is the server's host:port on 127.0.0.1.
func (e *Embedded) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(e.port)) }

// Port is the TCP port on 127.0.0.1.
func (e *Embedded) Port() int { return e.port }

// Dir is the server's temp folder (removed by Stop).
func (e *Embedded) Dir() string { return e.dir }

// LogFile is the server's log.
func (e *Embedded) LogFile() string { return filepath.Join(e.dir, "redis.log") }

// PID is the server's process id.
func (e *Embedded) PID() int { return e.pid }

// Signal sends sig to the server.
func (e *Embedded) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("signalling the embedded redis: %v is not a syscall.Signal", sig)
	}
	return kill(e.pid, s)
}

// Stop stops the server (SIGTERM, then SIGKILL) and removes its folder. It
// is idempotent, safe from any goroutine and bounded in time (about 10 s
// at worst); concurrent callers wait for the first.
func (e *Embedded) Stop() error {
	e.stopOnce.Do(func() {
		err := e.stopServer()
		if rerr := os.RemoveAll(e.dir); rerr != nil {
			err = errors.Join(err, fmt.Errorf("removing %s: %w", e.dir, rerr))
		}
		e.stopErr = err
	})
	return e.stopErr
}

// stopServer ends the server and waits until it is reaped.
func (e *Embedded) stopServer() error {
	if e.Exit == nil {
		return nil
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		if err := kill(e.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("stopping the embedded redis: %w", err)
		}
		select {
		case <-e.Exited():
			return nil
		case <-time.After(5 * time.Second):
		}
	}
	return fmt.Errorf("embedded redis pid %d did not exit", e.pid)
}

func (e *Embedded) logTail() string {
	b, _ := os.ReadFile(e.LogFile())
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return strings.TrimSpace(string(b))
}

// ownerPrefix names the folders of the servers pid owns: "btredis<pid>-".
func ownerPrefix(pid int) string { return serverPrefix + strconv.Itoa(pid) + "-" }

// cleanStale removes the server folders under root whose owner is gone (a
// benchtui killed with SIGKILL cannot remove its own; its server died
// with it). It is best effort.
func cleanStale(root string) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, ent := range ents {
		rest, ok := strings.CutPrefix(ent.Name(), serverPrefix)
		digits, _, cut := strings.Cut(rest, "-")
		owner, err := strconv.Atoi(digits)
		if !ok || !cut || err != nil || owner <= 0 || owner == os.Getpid() || !ent.IsDir() || alive(owner) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(root, ent.Name()))
	}
}
