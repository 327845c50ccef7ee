package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// The shared cache: the test processes of every package (go test runs one
// per package, two or more at once) link a binary once between them, not
// once each. A binary is keyed by the build IDs of its package and of all
// it imports, which change with any of their sources, tags or toolchain,
// so a changed tree never runs a stale binary.
const (
	sharedFolder = "benchtui-testbin"
	// lockWait bounds the wait on another process's build of the same
	// binary; past it the lock is taken as stale and the binary built here.
	lockWait = 3 * time.Minute
	// keepUnused is how long a binary no test used stays in the cache.
	keepUnused = 48 * time.Hour
)

// sharedBuild returns pkg's binary from the shared cache, building it there
// first when no other process has; ok is false when there is no cache to
// use (the caller then builds into the process's own folder).
func sharedBuild(pkg, tags, name string) (path string, ok bool, err error) {
	root, err := os.UserCacheDir()
	if err != nil {
		return "", false, nil
	}
	key, err := buildKey(pkg, tags)
	if err != nil {
		return "", false, err
	}
	root = filepath.Join(root, sharedFolder)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", false, nil
	}
	pruneOnce(root)
	path = filepath.Join(root, key, name)
	if found(path) {
		return path, true, nil
	}
	unlock := lock(filepath.Join(root, key+".lock"), func() bool { return found(path) })
	defer unlock()
	if found(path) {
		return path, true, nil
	}
	if err := buildInto(pkg, tags, path); err != nil {
		return "", true, err
	}
	return path, true, nil
}

// buildKey is the hash of the build IDs of pkg and all it imports, as
// `go list -export` gives them (each ID ends in its package's content
// hash), with the module's folder (the binary's file names).
func buildKey(pkg, tags string) (string, error) {
	args := []string{"list", "-deps", "-export", "-f", "{{.ImportPath}} {{.BuildID}}"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	out, err := exec.Command("go", append(args, pkg)...).Output()
	if err != nil {
		return "", fmt.Errorf("listing %s's build IDs: %w", pkg, err)
	}
	dir, _ := filepath.Abs(pkg)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", dir, tags)
	h.Write(out)
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// buildInto builds pkg to path through a file of its own beside it, so a
// reader never sees a binary half written.
func buildInto(pkg, tags, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("building %s: %w", pkg, err)
	}
	tmp := path + ".tmp" + strconv.Itoa(os.Getpid())
	args := []string{"build", "-o", tmp}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	if out, err := exec.Command("go", append(args, pkg)...).CombinedOutput(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("building %s: %w\n%s", pkg, err, out)
	}
	if err := os.Rename(tmp, path); err != nil && !found(path) {
		os.Remove(tmp)
		return fmt.Errorf("building %s: %w", pkg, err)
	}
	os.Remove(tmp)
	return nil
}

// found says whether path is a binary already there, and marks it used.
func found(path string) bool {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return false
	}
	now := time.Now()
	os.Chtimes(path, now, now)
	return true
}

// lock takes the lock file, waiting while another process holds it until
// done says its work is there or the lock goes. A lock older than
// lockWait (a process killed while building) is removed; after twice
// lockWait the caller goes on without it. The result gives the lock back.
func lock(file string, done func() bool) (unlock func()) {
	start := time.Now()
	for time.Since(start) < 2*lockWait {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(file) }
		}
		if !errors.Is(err, fs.ErrExist) || done() {
			break
		}
		if st, err := os.Stat(file); err == nil && time.Since(st.ModTime()) > lockWait {
			os.Remove(file)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return func() {}
}

var pruned bool

// pruneOnce removes, once a process, the cached binaries no test has used
// for keepUnused; mu is held.
func pruneOnce(root string) {
	if pruned {
		return
	}
	pruned = true
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if newest(dir).Before(time.Now().Add(-keepUnused)) {
			os.RemoveAll(dir)
		}
	}
}

// newest is the latest modification time of dir's files.
func newest(dir string) time.Time {
	var t time.Time
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		if info, err := f.Info(); err == nil && info.ModTime().After(t) {
			t = info.ModTime()
		}
	}
	return t
}
