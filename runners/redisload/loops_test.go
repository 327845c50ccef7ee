package redisload

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestOpenLoopCountsMatchServer: arrivals of an open loop are commands
// the server counted, one INCR each, and a data file's rows fill the
// arguments.
func TestOpenLoopCountsMatchServer(t *testing.T) {
	e := startServer(t)
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/rows.csv", []byte("user\nann\nbob\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := `
version: 1
groups:
  - id: open
    runner: redis
    data: {file: "${DATA}"}
    redis:
      addr: ${ADDR}
      commands: [{name: incr, cmd: [INCR, "hits:{{.user}}"]}]
    load: {rate: 200, max_in_flight: 16}
    duration: 1s
`
	p := runnertest.ParsePlan(t, testRegistry, yaml, map[string]string{"ADDR": e.Addr(), "DATA": dir + "/rows.csv"})
	a := runSession(t, p)
	st := a.Steps[0]
	c := admin(t, e.Addr())
	sum := doInt(t, c, "GET", "hits:ann") + doInt(t, c, "GET", "hits:bob")
	if st.Errors != 0 || st.Requests < 100 || sum != st.Requests || calls(t, c, "incr") != st.Requests {
		t.Fatalf("requests %d (errors %d %v), server: hits %d, INCR calls %d", st.Requests, st.Errors, st.ErrorKinds, sum, calls(t, c, "incr"))
	}
}

// TestEmbeddedServerStopsWithTheGroup: addr: embedded starts a server
// for the group, named in a note event, and the group's end stops it and
// removes its folder.
func TestEmbeddedServerStopsWithTheGroup(t *testing.T) {
	startServer(t) // skips without redis-server
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: emb
    runner: redis
    redis:
      addr: embedded
      commands: [{cmd: [INCR, hits]}]
    load: {concurrency: 2}
    iterations: 100
    max_duration: 60s
`, nil)
	pid, dir := embeddedNote(t, a.Steps[0].Events)
	if a.Steps[0].Requests != 100 || a.Steps[0].Errors != 0 {
		t.Fatalf("requests %d, errors %d %v", a.Steps[0].Requests, a.Steps[0].Errors, a.Steps[0].ErrorKinds)
	}
	if alive(pid) {
		t.Errorf("embedded redis pid %d still runs after the group", pid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("folder %s still there: %v", dir, err)
	}
}

// embeddedNote reads the pid and folder of the note event naming the
// embedded server.
func embeddedNote(t *testing.T, events []artifacts.Event) (int, string) {
	t.Helper()
	for _, ev := range events {
		rest, ok := strings.CutPrefix(ev.Note, "embedded redis: pid ")
		if !ok {
			continue
		}
		f := strings.Fields(rest) // "N," "port" "P," "folder" "DIR"
		pid, err := strconv.Atoi(strings.TrimSuffix(f[0], ","))
		if err != nil || len(f) < 5 {
			t.Fatalf("note %q", ev.Note)
		}
		return pid, f[4]
	}
	t.Fatalf("no embedded redis note in %v", events)
	return 0, ""
}
