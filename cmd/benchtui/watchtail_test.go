package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTailSkipsOverlongLines: a log line far longer than any live line
// (3 MiB, here) is skipped unread, and the lines after it are read; a
// partial last line waits for its end.
func TestTailSkipsOverlongLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := strings.Repeat("x", 3<<20) + "\nafter\npartial"
	if err := os.WriteFile(filepath.Join(dir, "shard-0.log"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := make(chan string, 8)
	tailDir(context.Background(), dir, true, out)
	var got []string
	for l := range out {
		got = append(got, l)
	}
	if len(got) != 1 || got[0] != "after" {
		t.Errorf("lines %q, want only \"after\"", got)
	}
}

// TestFollowSkipsOverlongLines: kubectl's stream of logs goes on past a
// line longer than any live line.
func TestFollowSkipsOverlongLines(t *testing.T) {
	t.Parallel()
	out := make(chan string, 8)
	scanLines(context.Background(), strings.NewReader(strings.Repeat("x", 3<<20)+"\nafter\nlast"), out)
	close(out)
	var got []string
	for l := range out {
		got = append(got, l)
	}
	if len(got) != 2 || got[0] != "after" || got[1] != "last" {
		t.Errorf("lines %q, want after and last", got)
	}
}
