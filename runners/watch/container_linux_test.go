package watch

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// standInRuntime puts a stand-in `docker` first on PATH: it answers
// `inspect --format {{.State.Pid}} NAME` with pids[NAME] and fails, as
// docker does, for any other name. No container engine is installed on
// the test hosts, so the runtime CLI is the only stand-in: the process,
// its cgroup and /proc are real.
func standInRuntime(t *testing.T, pids map[string]int) {
	t.Helper()
	dir := t.TempDir()
	var cases strings.Builder
	for name, pid := range pids {
		fmt.Fprintf(&cases, "  %s) echo %d ;;\n", name, pid)
	}
	script := `#!/bin/sh
[ "$1 $2 $3" = "inspect --format {{.State.Pid}}" ] || { echo "unexpected: $*" >&2; exit 2; }
case "$4" in
` + cases.String() + `  *) echo "Error: No such object: $4" >&2; exit 1 ;;
esac
`
	if err := os.WriteFile(filepath.Join(dir, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestContainerTarget: a real child in a real cgroup (v1 memory and
// cpuacct folders, or a v2 folder, made by the test), named "api" by a
// stand-in docker CLI (see standInRuntime), is resolved to that folder
// and sampled as a cgroup target; its memory is within 10% of the
// kernel's usage file and holds the child's 20 MiB.
func TestContainerTarget(t *testing.T) {
	dir, joins := realCgroup(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: the test's child holds memory with it")
	}
	// The child allocates once it is in the cgroup (a v1 memory cgroup
	// charges only what is allocated after joining).
	cmd := exec.Command("python3", "-c", `import sys, time
sys.stdin.readline()
b = bytearray(20 << 20)
for i in range(0, len(b), 4096): b[i] = 1
print("ready", flush=True)
time.sleep(60)`)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	startInCgroup(t, cmd, joins)
	fmt.Fprintln(in)
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("waiting for the child: %q %v", line, err)
	}
	standInRuntime(t, map[string]int{"api": cmd.Process.Pid})

	p := attachTo(t, Config{Name: "api", Container: "api"})
	if p.cgroup != dir {
		t.Errorf("container api resolved to %q, want %q", p.cgroup, dir)
	}
	got, err := p.Sampler().Sample()
	if err != nil {
		t.Fatal(err)
	}
	truth := kernelUsage(t, dir)
	if got.RSSBytes < 20<<20 || diffRatio(float64(got.RSSBytes), float64(truth)) > 0.10 {
		t.Errorf("memory %d MiB, the kernel's usage file says %d MiB (want >= 20 MiB, within 10%%)", got.RSSBytes>>20, truth>>20)
	}
}

// kernelUsage reads the folder's memory usage file (memory.current on
// v2, memory.usage_in_bytes on v1) independently of SampleCgroup.
func kernelUsage(t *testing.T, dir string) int64 {
	t.Helper()
	name := "memory.usage_in_bytes"
	if exists(filepath.Join(dir, "memory.current")) {
		name = "memory.current"
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A container the runtime does not know, one that is not running and a
// runtime not on PATH are errors naming the target, the command and what
// failed.
func TestContainerErrors(t *testing.T) {
	standInRuntime(t, map[string]int{"stopped": 0})
	for _, tc := range []struct {
		cfg  Config
		want []string
	}{
		{Config{Name: "db", Container: "nosuch"}, []string{`target "db"`, "docker inspect --format '{{.State.Pid}}' nosuch", "No such object: nosuch"}},
		{Config{Name: "db", Container: "stopped"}, []string{`target "db"`, "container stopped is not running (pid 0"}},
		{Config{Name: "db", Container: "api", Runtime: "nerdctl"}, []string{`target "db"`, "runtime nerdctl not found in PATH"}},
		{Config{Name: "db", Container: "-rm"}, []string{`target "db"`, "starts with '-'"}},
		{Config{Name: "db", PID: 1, Runtime: "docker"}, []string{"runtime is for a container target"}},
	} {
		if tc.cfg.Runtime == "nerdctl" {
			if _, err := exec.LookPath("nerdctl"); err == nil {
				continue // installed here after all
			}
		}
		_, err := Start(t.Context(), tc.cfg)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Start(%+v): %v, want an error with %q", tc.cfg, err, w)
			}
		}
	}
}
