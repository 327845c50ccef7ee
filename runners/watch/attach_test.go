//go:build linux

package watch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest/testbin"
)

// attachTo attaches to cfg's target with a short sample period, stopping
// the watch when the test ends.
func attachTo(t *testing.T, cfg Config) *Process {
	t.Helper()
	cfg.Sample = 50 * time.Millisecond
	return mustStart(t, cfg)
}

func TestAttachPID(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	cmd := execLeaky(t, "-listen", addr, "-print", "")
	p := attachTo(t, Config{Name: "pg", PID: cmd.Process.Pid, Ready: "tcp://" + addr})
	if p.PID() != cmd.Process.Pid || p.LogPath() != "" {
		t.Errorf("PID %d LogPath %q", p.PID(), p.LogPath())
	}
	s, err := p.Sampler().Sample()
	if err != nil || s.RSSBytes <= 0 || s.FDs < 3 {
		t.Fatalf("sample %+v, %v", s, err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if st := procState(p.PID()); st == "" || st == "Z" {
		t.Fatal("Stop of an attached target ended it")
	}
	// A second watch sees it die; it stays a zombie (ours to reap), which
	// counts as exited, and its status is read from /proc.
	q := attachTo(t, Config{PID: cmd.Process.Pid})
	signalExit(t, q, syscall.SIGKILL, "signal killed (attached; read from /proc while a zombie)")
}

func TestAttachPIDFile(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "postmaster.pid")
	cmd := execLeaky(t, "-pid-file", pidFile, "-print", "")
	waitPIDFile(t, pidFile)
	p := attachTo(t, Config{PIDFile: pidFile})
	if p.PID() != cmd.Process.Pid {
		t.Errorf("PID %d from pidfile, want %d", p.PID(), cmd.Process.Pid)
	}
	for _, body := range []string{"", "abc\n", "-4\n"} {
		bad := filepath.Join(t.TempDir(), "bad.pid")
		os.WriteFile(bad, []byte(body), 0o644)
		if _, err := Start(context.Background(), Config{PIDFile: bad}); err == nil {
			t.Errorf("attach by pidfile %q succeeded", body)
		}
	}
	if _, err := Start(context.Background(), Config{PID: testbin.DeadPID(t)}); err == nil {
		t.Error("attach to an exited pid succeeded")
	}
}

// fakeCgroup writes a cgroup folder with files (name -> content).
func fakeCgroup(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCgroupV2(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := execLeaky(t, "-print", "", "-pid-file", pidFile)
	pid := cmd.Process.Pid
	waitPIDFile(t, pidFile) // its fds are settled from then on
	procs := fmt.Sprintf("%d\n%d\n", pid, testbin.DeadPID(t))
	dir := fakeCgroup(t, map[string]string{
		"memory.current": "104857600\n", "cgroup.procs": procs,
		"cpu.stat":    "usage_usec 2000000\nuser_usec 1500000\nsystem_usec 500000\nnr_periods 10\nnr_throttled 3\nthrottled_usec 250000\n",
		"memory.stat": "anon 1\ninactive_file 20971520\n", "memory.events": "low 0\noom 1\noom_kill 1\n",
	})
	p := attachTo(t, Config{Cgroup: dir})
	if p.PID() != 0 {
		t.Errorf("PID of a cgroup %d, want 0", p.PID())
	}
	own, err := SampleProc(pid)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Sampler()
	now := time.Unix(0, 0)
	s.now = func() time.Time { return now }
	got, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if got.RSSMB() != 100 || got.WorkingSetBytes != 80<<20 || got.ThrottledPeriods != 3 || got.ThrottledSeconds != 0.25 || got.OOMKills != 1 || got.CPUSeconds != 2 || got.FDs != own.FDs || got.Threads < 1 {
		t.Errorf("cgroup sample %+v (process alone %+v)", got, own)
	}
	os.WriteFile(filepath.Join(dir, "cpu.stat"), []byte("usage_usec 2500000\n"), 0o644)
	now = now.Add(time.Second)
	if got, _ := s.Sample(); got.CPUCores != 0.5 {
		t.Errorf("cgroup cores %v, want 0.5", got.CPUCores)
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "cgroup.procs"), nil, 0o644)
	waitExited(t, p, 5*time.Second)
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("cgroup member not killed by Signal: %v", err)
	}
}

func TestCgroupV1(t *testing.T) {
	t.Parallel()
	dir := fakeCgroup(t, map[string]string{
		"memory.usage_in_bytes": "52428800\n", "cgroup.procs": strconv.Itoa(os.Getpid()) + "\n",
		"cpuacct.usage": "1500000000\n", "memory.stat": "cache 1\ntotal_inactive_file 10485760\n",
		"memory.max_usage_in_bytes": "62914560\n", "memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n",
	})
	got, err := SampleCgroup(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.RSSMB() != 50 || got.WorkingSetBytes != 40<<20 || got.MemPeakBytes != 60<<20 || got.OOMKills != 2 || got.CPUSeconds != 1.5 || got.FDs < 3 {
		t.Errorf("v1 sample %+v", got)
	}
	empty := fakeCgroup(t, map[string]string{"cgroup.procs": ""})
	if _, err := SampleCgroup(empty); err == nil {
		t.Error("a cgroup without memory files sampled")
	}
	if _, err := Start(context.Background(), Config{Cgroup: filepath.Join(empty, "missing")}); err == nil {
		t.Error("attach to a missing cgroup succeeded")
	}
}

func TestAttachReadyHTTPSSelfSigned(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ready" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	attachTo(t, Config{PID: os.Getpid(), Ready: srv.URL + "/ready", ReadyTimeout: 5 * time.Second})
	_, err := Start(context.Background(), Config{PID: os.Getpid(), Ready: srv.URL + "/down", ReadyTimeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("a 503 target got ready: %v", err)
	}
}
