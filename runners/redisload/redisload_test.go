package redisload

import (
	"testing"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestMixCountsMatchServer runs a counted mix and holds its figures to the
// server's own: INCR's calls (INFO commandstats) and the counter's value
// are the incr requests, the keys SET made are the set requests.
func TestMixCountsMatchServer(t *testing.T) {
	e := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: mix
    runner: redis
    redis:
      addr: ${ADDR}
      setup: [[FLUSHALL]]
      commands:
        - {name: incr, cmd: [INCR, hits], weight: 3}
        - {name: set, cmd: [SET, "k:{{seq}}", "v{{seq}}"], expect: [OK]}
    load: {concurrency: 8}
    iterations: 3000
    max_duration: 60s
`, map[string]string{"ADDR": e.Addr()})
	st := a.Steps[0]
	c := admin(t, e.Addr())
	incr, set := st.ByName["incr"].Requests, st.ByName["set"].Requests
	if st.Requests != 3000 || st.Errors != 0 || incr+set != 3000 {
		t.Fatalf("requests %d (incr %d, set %d), errors %d %v; want 3000, none failed", st.Requests, incr, set, st.Errors, st.ErrorKinds)
	}
	if got := doInt(t, c, "GET", "hits"); got != incr {
		t.Errorf("hits = %d, incr requests %d", got, incr)
	}
	if got := calls(t, c, "incr"); got != incr {
		t.Errorf("server counted %d INCR calls, the step %d", got, incr)
	}
	if got := doInt(t, c, "DBSIZE"); got != set+1 {
		t.Errorf("DBSIZE %d, want the %d set keys and hits", got, set)
	}
}
