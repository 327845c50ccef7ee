//go:build unix

package artifacts

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOIsRefusedNotWaitedOn: a FIFO named like an artifact, in a
// folder or named itself, is refused by name at once: opening it would
// wait for a writer that never comes.
func TestFIFOIsRefusedNotWaitedOn(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "g-1700000000000.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, in := range []string{dir, fifo} {
		done := make(chan error, 1)
		go func() {
			_, err := LoadShardFiles(in)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: got %v, want the FIFO refused by name", in, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still reading the FIFO after 10s", in)
		}
	}
}
