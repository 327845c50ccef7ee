package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestShardsRefuseTheEpollClient: client: epoll does not split its load
// over shards, so `run --shard` refuses it when the plan is checked,
// exit 2 at once naming the file, line and key (an http group, a
// postgres group and an http load of a loads group), before the start
// time is waited for; `kube manifest` refuses it too. The same http plan without shards runs.
func TestShardsRefuseTheEpollClient(t *testing.T) {
	t.Parallel()
	srv, served := runnertest.CountingServer(t, 0)
	httpPlan := writePlanText(t, fmt.Sprintf(`version: 1
groups:
  - id: web
    runner: http
    http: {client: epoll, requests: [{url: "%s/s"}]}
    load: {concurrency: 2}
    duration: 300ms
`, srv.URL))
	pgPlan := writePlanText(t, `version: 1
groups:
  - id: pg
    runner: postgres
    postgres: {client: epoll, dsn: "postgres://u@127.0.0.1:1/db", statements: [{sql: "SELECT 1"}]}
    load: {concurrency: 2}
    duration: 1s
`)
	loadsPlan := writePlanText(t, fmt.Sprintf(`version: 1
groups:
  - id: mixed
    duration: 1s
    loads:
      - name: fast
        runner: http
        http: {requests: [{url: "%[1]s/a"}]}
        load: {concurrency: 2}
      - name: lean
        runner: http
        http: {client: epoll, requests: [{url: "%[1]s/b"}]}
        load: {concurrency: 2}
`, srv.URL))
	start := strconv.FormatInt(time.Now().Add(20*time.Second).Unix(), 10) // near: a late refusal would not hang the test
	for _, c := range []struct{ plan, group, want string }{
		{httpPlan, "web", ":5:11: group web: http.client: epoll does not run sharded"},
		{pgPlan, "pg", ":5:15: group pg: postgres.client: epoll does not run sharded"},
		{loadsPlan, "mixed", ":12:15: group mixed: loads.lean: http.client: epoll does not run sharded"},
	} {
		began := time.Now()
		code, _, stderr := runCmd(t, cmdRun, c.plan, "--shard", "0/2", "--run-id", "r", "--start-at", start, "--start-tolerance", testStartTolerance, "-o", t.TempDir())
		if code != exitUsage || !strings.Contains(stderr, c.plan+c.want) {
			t.Errorf("exit %d, want 2 with %q:\n%s", code, c.want, stderr)
		}
		if took := time.Since(began); took > 10*time.Second {
			t.Errorf("refused after %s: want at once, not at the start time", took)
		}
		code, _, stderr = runCmd(t, cmdKube, "manifest", c.plan, "-g", c.group, "--shards", "2", "--image", "x")
		if code != exitUsage || !strings.Contains(stderr, c.plan+c.want) {
			t.Errorf("kube manifest: exit %d, want 2 with %q:\n%s", code, c.want, stderr)
		}
		if code, _, stderr := runCmd(t, cmdValidate, c.plan); code != exitOK {
			t.Errorf("validate without shards: exit %d\n%s", code, stderr)
		}
	}
	if served.Load() != 0 {
		t.Fatalf("the refused runs sent %d requests", served.Load())
	}
	out := t.TempDir()
	if code, _, stderr := runCmd(t, cmdRun, httpPlan, "-o", out); code != exitOK {
		t.Fatalf("the epoll plan without shards: exit %d\n%s", code, stderr)
	}
	if a := loadArtifacts(t, out)["web"]; a == nil || a.Steps[0].Requests == 0 || a.Steps[0].Requests != served.Load() {
		t.Errorf("the epoll plan without shards: artifact %v, server served %d", a != nil, served.Load())
	}
}
