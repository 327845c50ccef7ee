package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSharedBuildIsReusedUntilTheSourceChanges: a second process's build of
// the same package gets the binary the first linked; a change to a package
// it imports gives a new binary that runs the change.
func TestSharedBuildIsReusedUntilTheSourceChanges(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	// The go command keeps its own cache and module folders, which it
	// finds through the variables below.
	goenv, err := exec.Command("go", "env", "GOCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatal(err)
	}
	gocache, gopath, _ := strings.Cut(strings.TrimSpace(string(goenv)), "\n")
	t.Setenv("GOCACHE", gocache)
	t.Setenv("GOPATH", gopath)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("LocalAppData", t.TempDir())
	mod := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(mod, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("cmd/hello/main.go", "package main\n\nimport (\"fmt\"; \"example.com/m/word\")\n\nfunc main() { fmt.Print(word.W) }\n")
	write("word/word.go", "package word\n\nconst W = \"first\"\n")
	t.Chdir(mod)

	run := func() (string, os.FileInfo) {
		t.Helper()
		pruned = false
		path, ok, err := sharedBuild("./cmd/hello", "", "hello")
		if err != nil || !ok {
			t.Fatalf("shared build: %q, %v, %v", path, ok, err)
		}
		out, err := exec.Command(path).Output()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(out), st
	}
	out1, st1 := run()
	out2, st2 := run()
	if out1 != "first" || out2 != "first" || !os.SameFile(st1, st2) {
		t.Fatalf("second build: %q then %q, same file %v; want one binary printing first", out1, out2, os.SameFile(st1, st2))
	}
	write("word/word.go", "package word\n\nconst W = \"second\"\n")
	out3, st3 := run()
	if out3 != "second" || os.SameFile(st1, st3) {
		t.Fatalf("after the change: %q, same file %v; want a new binary printing second", out3, os.SameFile(st1, st3))
	}
	entries, err := os.ReadDir(filepath.Dir(filepath.Dir(mustShared(t))))
	if err != nil || len(entries) != 2 {
		t.Errorf("cache holds %d entries (%v), want the 2 builds", len(entries), err)
	}
}

// mustShared is the shared path of ./cmd/hello as built last.
func mustShared(t *testing.T) string {
	t.Helper()
	path, _, err := sharedBuild("./cmd/hello", "", "hello")
	if err != nil {
		t.Fatal(err)
	}
	return path
}
