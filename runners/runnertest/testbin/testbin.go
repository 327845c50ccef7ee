// Package testbin builds the binaries that tests run (a helper server, the
// real benchtui) with `go build`, once per test process. It is for tests
// only and imports nothing of benchtui, so the tests of any package,
// runners/watch's included, can use it.
//
// The binaries go to a cache the test processes of every package share
// (shared.go), or, where there is none, to a temporary folder of the
// process that Exit removes:
//
//	func TestMain(m *testing.M) {
//		helperBin = testbin.MustBuild("./testdata/helper")
//		goleak.VerifyTestMain(m, goleak.Cleanup(testbin.Exit))
//	}
package testbin

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	dir   string             // the process's folder, made on first build
	built = map[string]bin{} // by package as given and build tags
)

type bin struct {
	path string
	err  error
}

// Build builds pkg (a package as `go build` takes it, relative to the
// test's package folder) on its first call in the process and returns the
// binary's path, named after the package's folder; a failed build fails t.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	return BuildTagged(t, pkg, "")
}

// BuildTagged is Build with `go build -tags tags` (a binary with test
// hooks compiled in); each set of tags is built once.
func BuildTagged(t testing.TB, pkg, tags string) string {
	t.Helper()
	path, err := build(pkg, tags)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// MustBuild is Build for TestMain, before any test runs: a failed build
// ends the process with status 2.
func MustBuild(pkg string) string {
	path, err := build(pkg, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		Exit(2)
	}
	return path
}

// Exit removes the binaries built in the process and exits with code. It
// fits goleak.Cleanup.
func Exit(code int) {
	mu.Lock()
	if dir != "" {
		os.RemoveAll(dir)
	}
	mu.Unlock()
	os.Exit(code)
}

func build(pkg, tags string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	key := pkg + " " + tags
	if b, ok := built[key]; ok {
		return b.path, b.err
	}
	b := buildNew(pkg, tags)
	built[key] = b
	return b.path, b.err
}

// buildNew builds pkg, into the cache the test processes share when there
// is one, else into a folder of its own under dir; mu is held.
func buildNew(pkg, tags string) bin {
	name, err := filepath.Abs(pkg)
	if err != nil {
		return bin{err: fmt.Errorf("building %s: %w", pkg, err)}
	}
	if path, ok, err := sharedBuild(pkg, tags, filepath.Base(name)); ok || err != nil {
		return bin{path: path, err: err}
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "benchtui-testbin-")
		if err != nil {
			return bin{err: fmt.Errorf("creating the binaries' folder: %w", err)}
		}
		dir = d
	}
	sub := filepath.Join(dir, strconv.Itoa(len(built)))
	if err := os.Mkdir(sub, 0o755); err != nil {
		return bin{err: fmt.Errorf("building %s: %w", pkg, err)}
	}
	path := filepath.Join(sub, filepath.Base(name))
	if err := buildInto(pkg, tags, path); err != nil {
		return bin{err: err}
	}
	return bin{path: path}
}

// DefaultParallel sets -test.parallel to n unless the command line set
// it, for the TestMain of a package whose tests mostly wait (on child
// processes, tmux, servers that sleep), where the default, GOMAXPROCS,
// leaves the CPU idle. Call it before m.Run.
func DefaultParallel(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", strconv.Itoa(n)); err != nil {
			panic(err)
		}
	}
}
