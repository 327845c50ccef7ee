//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDiscardedStdoutIsNoLoss: a stdout sent to /dev/null, write-only
// by a shell or read-write as Python's subprocess.DEVNULL and a stdout
// closed before the start (which Go's runtime reopens on /dev/null) give,
// is output discarded on purpose: exit 0, nothing said.
func TestDiscardedStdoutIsNoLoss(t *testing.T) {
	t.Parallel()
	bin := benchtuiBinary(t)
	for _, redirect := range []string{">/dev/null", "1<>/dev/null", ">&-"} {
		cmd := exec.Command("sh", "-c", `exec "$0" version `+redirect, bin)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Errorf("version %s: %v, stderr %q; want exit 0, nothing said", redirect, err, stderr.String())
		}
	}
}

// TestReportReplacesOnlyRegularFiles: report -o onto a symbolic link or
// a FIFO is refused (exit 2) and leaves both as they were; onto a
// regular file it replaces the file.
func TestReportReplacesOnlyRegularFiles(t *testing.T) {
	t.Parallel()
	arts := writeRun(t, 1, time.Now(), 5900, 1.2, 8)
	dir := t.TempDir()
	target := filepath.Join(dir, "target.md")
	link := filepath.Join(dir, "link.md")
	fifo := filepath.Join(dir, "fifo.md")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{link, fifo} {
		code, _, stderr := runCmd(t, cmdReport, arts, "-o", path)
		if code != exitUsage || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("-o %s: exit %d, stderr %q; want 2, refused", path, code, stderr)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target now holds %q", b)
	}
	if code, _, stderr := runCmd(t, cmdReport, arts, "-o", target); code != exitOK {
		t.Errorf("-o a regular file: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(target); !strings.HasPrefix(string(b), "#") {
		t.Errorf("the regular file was not replaced by the report: %.40q", b)
	}
}
