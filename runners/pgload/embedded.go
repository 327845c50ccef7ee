package pgload

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/benchtui/benchtui/runners/reap"
	"github.com/benchtui/benchtui/runners/watch"
)

// ErrNoPostgres is returned by StartEmbedded when initdb and postgres
// cannot be found.
var ErrNoPostgres = errors.New("postgres binaries (initdb, postgres) not found on PATH or in " +
	"/usr/lib/postgresql/*/bin: install them, for example with `apt-get install postgresql`")

// EmbeddedOptions configure StartEmbedded. The zero value is ready to use.
type EmbeddedOptions struct {
	// BinDir holds initdb and postgres; empty means look on PATH,
	// then in /usr/lib/postgresql/*/bin (highest version first).
	BinDir string
	// MaxConnections is the server's max_connections, at least 200.
	MaxConnections int
	// Settings are further postgresql.conf settings.
	Settings map[string]string
	// StartTimeout bounds initdb plus start; 0 means 60s.
	StartTimeout time.Duration

	// templateRoot holds the cached initdb template (see embedded_template.go);
	// empty means embeddedRoot. Tests set it to stay away from the
	// machine's template.
	templateRoot string
}

// Embedded is a throwaway Postgres cluster in a temp folder, tuned for
// benchmarks and tests (fsync off). It listens on 127.0.0.1 on a free port
// and on a unix socket in its folder. Stop it on every way out.
type Embedded struct {
	dir  string // temp folder: socket, log, data/
	bin  string
	port int
	pid  int
	cred *credential // non-nil when running as root

	// Exit ends when the postmaster has exited (and been reaped); nil
	// before it starts.
	*watch.Exit

	stopOnce sync.Once
	stopErr  error
}

// StartEmbedded creates, starts and waits for a throwaway cluster. Its
// data folder is a copy of a cached initdb template (see
// embedded_template.go), or the output of its own initdb when the
// template cannot be used. When running as root, the cluster runs as the
// `postgres` OS user (initdb refuses root). On error nothing is left behind. It needs a Unix: elsewhere
// it returns an error wrapping watch.ErrUnsupported.
//
// The postmaster dies with benchtui (see startServer); the folder of a
// cluster whose owner was killed is removed by the next StartEmbedded of
// any benchtui on the machine (cleanStale).
func StartEmbedded(ctx context.Context, opts EmbeddedOptions) (*Embedded, error) {
	if errNoEmbedded != nil {
		return nil, errNoEmbedded
	}
	bin, err := findBinDir(opts.BinDir)
	if err != nil {
		return nil, err
	}
	cred, err := serverCredential()
	if err != nil {
		return nil, err
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	cleanStale(embeddedRoot)
	// A short folder: a unix socket path must fit in 107 bytes.
	dir, err := os.MkdirTemp(embeddedRoot, ownerPrefix(os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("creating the embedded postgres folder: %w", err)
	}
	e := &Embedded{dir: dir, bin: bin, cred: cred}
	if err := e.start(ctx, opts); err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	return e, nil
}

// initdbArgs are the options of every initdb run, after -D (a cluster's
// own, or the cached template's).
var initdbArgs = []string{"-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"}

func (e *Embedded) start(ctx context.Context, opts EmbeddedOptions) error {
	// The data folder is copied from the cached template before the
	// cluster's folder is handed to the postgres user, so that user
	// cannot meddle with what root writes; initdb is the fallback.
	tmplErr := e.copyFromTemplate(ctx, cmp.Or(opts.templateRoot, embeddedRoot))
	if e.cred != nil {
		if err := os.Chown(e.dir, int(e.cred.Uid), int(e.cred.Gid)); err != nil {
			return fmt.Errorf("handing %s to the postgres user: %w", e.dir, err)
		}
	}
	if tmplErr != nil {
		if err := e.initdb(ctx); err != nil {
			return fmt.Errorf("%w (the cached initdb template could not be used either: %v)", err, tmplErr)
		}
	}
	if err := e.writeConf(opts); err != nil {
		return err
	}
	return e.startServer(ctx)
}

// initdb makes the cluster's data folder afresh.
func (e *Embedded) initdb(ctx context.Context) error {
	if err := os.RemoveAll(e.DataDir()); err != nil {
		return fmt.Errorf("clearing %s: %w", e.DataDir(), err)
	}
	_, err := runProgram(ctx, e.bin, e.cred, e.dir, e.DataDir(), "initdb", append([]string{"-D", e.DataDir()}, initdbArgs...)...)
	return err
}

func (e *Embedded) writeConf(opts EmbeddedOptions) error {
	maxConns := max(opts.MaxConnections, 200)
	conf := map[string]string{
		"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off",
		"listen_addresses": "'127.0.0.1'", "unix_socket_directories": "'" + e.dir + "'",
		"max_connections": strconv.Itoa(maxConns), "shared_buffers": "'128MB'",
	}
	for k, v := range opts.Settings {
		conf[k] = v
	}
	keys := make([]string, 0, len(conf))
	for k := range conf {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("\n# benchtui embedded cluster\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s = %s\n", k, conf[k])
	}
	path := filepath.Join(e.DataDir(), "postgresql.conf")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("configuring the embedded postgres: %w", err)
	}
	_, err = f.WriteString(b.String())
	return errors.Join(err, f.Close())
}

// runProgram runs one of the cluster's programs (initdb) of bin, in dir
// for the data folder dataDir, as cred (the postgres user when root) when
// not nil, tied to benchtui's life.
func runProgram(ctx context.Context, bin string, cred *credential, dir, dataDir, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(bin, name), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "PGDATA="+dataDir)
	// Own process group: a Ctrl-C in the terminal reaches benchtui, which
	// stops the cluster in order, and not the cluster directly.
	cmd.SysProcAttr = groupAttr(cred)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	release, err := watch.StartTied(cmd)
	if err == nil {
		err = cmd.Wait()
		release()
	}
	if err != nil {
		return out.Bytes(), fmt.Errorf("running %s: %w: %s", name, err, strings.TrimSpace(out.String()))
	}
	return out.Bytes(), nil
}

// DSN is the URL to connect to the cluster as the superuser over TCP.
func (e *Embedded) DSN() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", e.port)
}

// DSNFor is the URL of another database of the cluster.
func (e *Embedded) DSNFor(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", e.port, database)
}

// Port is the TCP port on 127.0.0.1.
func (e *Embedded) Port() int { return e.port }

// Dir is the cluster's temp folder (removed by Stop); its unix socket is there.
func (e *Embedded) Dir() string { return e.dir }

// DataDir is the cluster's data folder.
func (e *Embedded) DataDir() string { return filepath.Join(e.dir, "data") }

// LogFile is the server's log.
func (e *Embedded) LogFile() string { return filepath.Join(e.dir, "postgres.log") }

// PID is the postmaster's process id.
func (e *Embedded) PID() int { return e.pid }

// PIDFile is the postmaster's pid file, so the server can be watched as a
// target (`pidfile:`).
func (e *Embedded) PIDFile() string { return filepath.Join(e.DataDir(), "postmaster.pid") }

// Stop shuts the cluster down (immediate mode: its data is thrown away)
// and removes its folder. It is idempotent, safe from any goroutine, takes
// no context and is bounded in time (about 15 s at worst), so a signal
// handler or a deferred cleanup can call it; concurrent callers wait for
// the first.
func (e *Embedded) Stop() error {
	e.stopOnce.Do(func() { e.stopErr = e.stop() })
	return e.stopErr
}

func (e *Embedded) stop() error {
	var errs []error
	if err := e.stopServer(); err != nil {
		errs = append(errs, err)
	}
	if err := os.RemoveAll(e.dir); err != nil {
		errs = append(errs, fmt.Errorf("removing %s: %w", e.dir, err))
	}
	return errors.Join(errs...)
}

func (e *Embedded) logTail() string {
	b, _ := os.ReadFile(e.LogFile())
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return strings.TrimSpace(string(b))
}

func waitGone(pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for reap.Alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func readPIDFile(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("reading the postgres pid file: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0, fmt.Errorf("reading the postgres pid file %s: %w", path, err)
	}
	return pid, nil
}

// FindBinDir returns the folder holding initdb and postgres (the cluster
// runs without pg_ctl: the postmaster is benchtui's own child): dir
// itself when given, else the one on PATH, else the highest version under
// /usr/lib/postgresql. The error wraps ErrNoPostgres.
func FindBinDir(dir string) (string, error) { return findBinDir(dir) }

func findBinDir(dir string) (string, error) {
	var candidates []string
	if dir != "" {
		candidates = []string{dir}
	} else {
		if p, err := exec.LookPath("initdb"); err == nil {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				candidates = append(candidates, filepath.Dir(real))
			}
		}
		candidates = append(candidates, versionDirs()...)
	}
	for _, c := range candidates {
		if hasBinaries(c) {
			return c, nil
		}
	}
	return "", ErrNoPostgres
}

func hasBinaries(dir string) bool {
	for _, name := range []string{"initdb", "postgres"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// versionDirs lists /usr/lib/postgresql/*/bin, highest version first.
func versionDirs() []string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(d string) float64 {
		v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(d)), 64)
		return v
	}
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	return dirs
}
