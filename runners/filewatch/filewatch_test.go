package filewatch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// next waits up to wait for a Change; ok is false when none came.
func next(w *Watcher, wait time.Duration) (Change, bool) {
	select {
	case c := <-w.C:
		return c, true
	case <-time.After(wait):
		return Change{}, false
	}
}

// TestBurstsAreOneChange: several writes to two files in a burst are one
// Change naming both; writes under an ignored folder, to a hidden file or
// inside .git are none; a folder made after the start is watched too.
func TestBurstsAreOneChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{"pkg", "out", ".git"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The burst's ten writes must land within one debounce: a starved
	// machine once paused the test more than 100 ms between two of them.
	const debounce = 500 * time.Millisecond
	w, err := New([]string{dir}, []string{filepath.Join(dir, "out")}, debounce)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for i := range 5 {
		write(t, filepath.Join(dir, "main.go"), "package main // "+string(rune('a'+i)))
		write(t, filepath.Join(dir, "pkg", "a.go"), "package pkg")
	}
	c, ok := next(w, 5*time.Second)
	if !ok || len(c.Paths) != 2 || filepath.Base(c.Paths[0]) != "main.go" || filepath.Base(c.Paths[1]) != "a.go" {
		t.Fatalf("burst: %+v, %v; want one change of main.go and pkg/a.go", c, ok)
	}
	if c2, ok := next(w, 2*debounce); ok {
		t.Fatalf("a second change after one burst: %+v", c2)
	}
	write(t, filepath.Join(dir, "out", "server"), "binary")
	write(t, filepath.Join(dir, ".main.go.swp"), "swap")
	write(t, filepath.Join(dir, ".git", "index"), "git")
	if c, ok := next(w, 2*debounce); ok {
		t.Fatalf("ignored, hidden and .git writes made a change: %+v", c)
	}
	if err := os.Mkdir(filepath.Join(dir, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := next(w, 5*time.Second); !ok { // the folder's creation
		t.Fatal("no change for a new folder")
	}
	write(t, filepath.Join(dir, "new", "b.go"), "package new")
	if c, ok := next(w, 5*time.Second); !ok || filepath.Base(c.Paths[0]) != "b.go" {
		t.Fatalf("a file in a new folder: %+v, %v", c, ok)
	}
}

func TestMissingPathIsAnErrorNamingIt(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := New([]string{missing}, nil, 0); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("error %v, want one naming %s", err, missing)
	}
}

func TestStopClosesC(t *testing.T) {
	t.Parallel()
	w, err := New([]string{t.TempDir()}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	select {
	case _, ok := <-w.C:
		if ok {
			t.Fatal("a change after Stop")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("C still open 5s after Stop")
	}
}
