package logcount

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func patterns() map[string]*regexp.Regexp {
	return map[string]*regexp.Regexp{"warn": regexp.MustCompile(`WARN`), "sweep": regexp.MustCompile(`session sweep`)}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestCountsOnlyLinesAfterStart: lines before Start are not counted, lines
// after it are, a line over MaxLine counts once, and a last line without
// its newline counts at Stop.
func TestCountsOnlyLinesAfterStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.log")
	appendTo(t, path, "WARN before\nWARN before\n")
	c := Start(context.Background(), path, patterns())
	appendTo(t, path, "WARN one\nsession sweep done\nINFO x\n")
	time.Sleep(3 * Poll)
	appendTo(t, path, "WARN two\r\n"+strings.Repeat("x", MaxLine+10)+" WARN hidden past the cut\n")
	appendTo(t, path, strings.Repeat("WARN ", MaxLine)+"\nWARN three\nWARN fou")
	appendTo(t, path, "r")
	counts, long, err := c.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if counts["warn"] != 5 || counts["sweep"] != 1 || long != 2 {
		t.Errorf("counts %v, long %d; want warn 5, sweep 1, long 2", counts, long)
	}
	appendTo(t, path, "WARN after\n")
	if again, _, _ := c.Stop(); again["warn"] != 5 {
		t.Errorf("after Stop: warn %d, want 5", again["warn"])
	}
}

// TestTruncatedFileIsReadFromItsStart: a restarted target's fresh log
// (shorter than what was read) is counted from its first line.
func TestTruncatedFileIsReadFromItsStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.log")
	appendTo(t, path, strings.Repeat("INFO padding line\n", 100))
	c := Start(context.Background(), path, patterns())
	appendTo(t, path, "WARN a\n")
	time.Sleep(3 * Poll)
	if err := os.WriteFile(path, []byte("WARN b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	counts, _, _ := c.Stop()
	if counts["warn"] != 2 {
		t.Errorf("warn %d, want 2", counts["warn"])
	}
}

// TestMissingFileCountsOnceItAppears.
func TestMissingFileCountsOnceItAppears(t *testing.T) {
	path := filepath.Join(t.TempDir(), "later.log")
	c := Start(context.Background(), path, patterns())
	time.Sleep(2 * Poll)
	appendTo(t, path, "WARN x\n")
	counts, _, err := c.Stop()
	if err != nil || counts["warn"] != 1 {
		t.Errorf("warn %d, err %v; want 1, nil", counts["warn"], err)
	}
}
