package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bisectServer is the source of the test server at commit k (1-based): a
// standard-library HTTP server whose /work sleeps 20 ms, 20 ms more from
// slowFrom on, when it also starts to leak 64 KiB every 10 ms; commit
// broken does not compile. The others change only a constant and a
// comment. The 20 ms a request makes the median's noise on a busy machine
// a few percent of it (with 5 ms, beside two CPU burners, commits before
// the slow one measured +25% and were judged worse).
func bisectServer(k, slowFrom, broken int) string {
	extra, leak := "0", "false"
	if k >= slowFrom {
		extra, leak = "20", "true"
	}
	src := fmt.Sprintf(`// Command server is the test server of benchtui bisect, at commit %d.
package main

import (
	"flag"
	"net/http"
	"sync"
	"time"
)

const (
	revision    = %d
	extraMillis = %s
	leaks       = %s
)

var (
	mu     sync.Mutex
	leaked [][]byte
)

func leak() {
	for range time.Tick(10 * time.Millisecond) {
		b := make([]byte, 64<<10)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1 // touched: resident
		}
		mu.Lock()
		leaked = append(leaked, b)
		mu.Unlock()
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the address to listen on")
	flag.Parse()
	if leaks {
		go leak()
	}
	http.HandleFunc("/work", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20*time.Millisecond + extraMillis*time.Millisecond)
		w.Write([]byte("ok\n"))
	})
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {})
	panic(http.ListenAndServe(*addr, nil))
}
`, k, k, extra, leak)
	if k == broken {
		src = strings.Replace(src, "w.Write(", "w.Wrte(", 1)
	}
	return src
}

// bisectRepo makes a git repository of n commits of the test server
// (bisectServer), with the plan (untracked, as a user's local file) at
// its top, and returns its folder and the commits' hashes, oldest first.
func bisectRepo(t *testing.T, n, slowFrom, broken int, plan string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=bisect test",
			"-c", "user.email=bisect@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "--quiet")
	writeFile(t, filepath.Join(dir, "go.mod"), "module bisectserver\n\ngo 1.21\n")
	writeFile(t, filepath.Join(dir, ".gitignore"), "bin/\n")
	var hashes []string
	for k := 1; k <= n; k++ {
		writeFile(t, filepath.Join(dir, "main.go"), bisectServer(k, slowFrom, broken))
		git("add", "-A")
		git("commit", "--quiet", "-m", fmt.Sprintf("commit %d", k))
		hashes = append(hashes, git("rev-parse", "HEAD"))
	}
	writeFile(t, filepath.Join(dir, "bench.yaml"), plan)
	return dir, hashes
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
