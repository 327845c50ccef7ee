package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHostilePlansAreRefused validates every plan in testdata/hostile: each
// is refused with exit 2 within a few seconds, its stderr holds every
// "# want:" line of the file (a "# want: !text" must be absent) and no
// control byte but the newlines between messages.
func TestHostilePlansAreRefused(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/hostile/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no hostile plans: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			wants := wantLines(t, file)
			code, stdout, stderr := validateWithin(t, file, 10*time.Second)
			if code != exitUsage {
				t.Errorf("exit %d, want 2; stdout %q", code, stdout)
			}
			for _, w := range wants {
				if absent, ok := strings.CutPrefix(w, "!"); ok {
					if strings.Contains(stderr, absent) {
						t.Errorf("stderr holds %q:\n%s", absent, stderr)
					}
				} else if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if i := strings.IndexFunc(stderr, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f }); i >= 0 {
				t.Errorf("stderr holds control byte %q at %d:\n%q", stderr[i], i, stderr)
			}
		})
	}
}

// wantLines are the "# want: …" comments of a plan file.
func wantLines(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var wants []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if w, ok := strings.CutPrefix(sc.Text(), "# want: "); ok {
			wants = append(wants, w)
		}
	}
	if len(wants) == 0 {
		t.Fatalf("%s has no # want: line", file)
	}
	return wants
}

// validateWithin runs `benchtui validate file`, failing the test when it
// takes longer than limit (an alias bomb used to take minutes).
func validateWithin(t *testing.T, file string, limit time.Duration) (int, string, string) {
	t.Helper()
	return runWithin(t, limit, cmdValidate, file)
}

// runWithin runs cmd with args, failing the test when it takes longer
// than limit.
func runWithin(t *testing.T, limit time.Duration, cmd command, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := runCmd(t, cmd, args...)
		done <- result{code, stdout, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(limit):
		t.Fatalf("%s still running after %s", strings.Join(args, " "), limit)
		return 0, "", ""
	}
}

// TestPublicAddressWarns: a plan that loads a public address validates,
// with a warning that names the group, the key and the address.
func TestPublicAddressWarns(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "public.yaml")
	if err := os.WriteFile(path, []byte(`version: 1
groups:
  - id: pub
    runner: http
    http: {requests: [{url: "http://127.0.0.1:8080/a"}, {url: "http://203.0.113.9:8080/x"}]}
    load: {concurrency: 1}
    duration: 1s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, cmdValidate, path)
	want := "warning: group pub: http.requests[1].url: 203.0.113.9 is neither a loopback nor a private address"
	if code != exitOK || !strings.Contains(stderr, want) || strings.Contains(stderr, "127.0.0.1") {
		t.Errorf("exit %d, stderr %q: want 0 and one warning %q", code, stderr, want)
	}
}
