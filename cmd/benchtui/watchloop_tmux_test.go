package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// watchServer is a small Go server whose /work handler sleeps delay.
const watchServer = `package main

import (
	"flag"
	"net/http"
	"time"
)

const delay = %s

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	flag.Parse()
	http.HandleFunc("/work", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		w.Write([]byte("ok"))
	})
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	http.ListenAndServe(*addr, nil)
}
`

// TestWatchLoopUnderTmux is the loop with no key press between saving a
// file and reading the verdict: the real console on a real Go server
// with --watch; saving main.go rebuilds the server and reruns the group,
// whose first run becomes the baseline; saving it with 20 ms more in the
// handler does the same, and the history strip marks that run worse; a
// save that does not compile shows the compiler's line and keeps the
// last good server.
func TestWatchLoopUnderTmux(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the server")
	}
	dir := filepath.Join(t.TempDir(), "srv")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	addr, err := freeLoopbackAddr("tcp")
	if err != nil {
		t.Fatal(err)
	}
	save := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	save("go.mod", "module srv\n\ngo 1.22\n")
	save("bench.yaml", fmt.Sprintf(`version: 1
targets:
  api:
    command: [./bin/server, --addr, %[1]q]
    build: [go, build, -o, bin/server, .]
    ready: http://%[1]s/healthz
groups:
  - id: work
    runner: http
    target: api
    http: {requests: [{url: "http://%[1]s/work"}]}
    load: {concurrency: 2}
    block: 500ms
    duration: 3s
`, addr))
	save("main.go", fmt.Sprintf(watchServer, "0 * time.Millisecond"))
	c := startConsole(t, "watchloop", dir, "--watch .", 110, 32)
	c.waitFor("the console watching", `work\s+idle`, `save a file under \. to rebuild and rerun`)

	save("main.go", fmt.Sprintf(watchServer, "0 * time.Millisecond // touched"))
	c.waitFor("the first run, the baseline", `watch • base p99`)
	save("main.go", fmt.Sprintf(watchServer, "20 * time.Millisecond"))
	screen := c.waitFor("the second run, judged worse", `watch • base p99 \S+ · ✗ \S+ \S+ \S+ worse`)
	if strings.Contains(screen, "build failed") {
		t.Fatalf("a build failed:\n%s", screen)
	}
	save("main.go", strings.Replace(fmt.Sprintf(watchServer, "20 * time.Millisecond"), "flag.Parse()", "flag.Parse() +", 1))
	c.waitFor("the failed build, with the compiler's line", `✗ build failed`, `main\.go:\d+`)
	c.send("q")
	c.waitFor("the summary", `exit=`)
}
