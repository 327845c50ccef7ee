package redisload

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/engine"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestPipelineCountsEachCommand: each command of a batch is one request,
// and the server's INCR calls are the step's requests.
func TestPipelineCountsEachCommand(t *testing.T) {
	e := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: pipe
    runner: redis
    redis:
      addr: ${ADDR}
      pipeline: 16
      commands: [{name: incr, cmd: [INCR, hits]}]
    load: {concurrency: 4}
    duration: 1s
`, map[string]string{"ADDR": e.Addr()})
	st := a.Steps[0]
	c := admin(t, e.Addr())
	if st.Errors != 0 || st.Requests == 0 || st.Requests%16 != 0 {
		t.Fatalf("requests %d, errors %d %v; want whole batches of 16, none failed", st.Requests, st.Errors, st.ErrorKinds)
	}
	if got := calls(t, c, "incr"); got != st.Requests {
		t.Errorf("server counted %d INCR calls, the step %d requests", got, st.Requests)
	}
	if got := doInt(t, c, "GET", "hits"); got != st.Requests {
		t.Errorf("hits = %d, requests %d", got, st.Requests)
	}
}

// tokenBucket takes one token of the bucket KEYS[1] holding at most
// ARGV[1] (no refill): 1 when it had one, else 0.
const tokenBucket = `local n = redis.call('INCR', KEYS[1])
if n <= tonumber(ARGV[1]) then return 1 end
return 0`

// TestScriptCountsReplies: a Lua script by EVALSHA (EVAL after NOSCRIPT)
// whose replies are counted by value: allowed and denied are exact, and
// the bucket's key holds every take.
func TestScriptCountsReplies(t *testing.T) {
	e := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, fmt.Sprintf(`
version: 1
groups:
  - id: gate
    runner: redis
    redis:
      addr: ${ADDR}
      commands:
        - name: take
          script: %q
          keys: [bucket]
          args: ["300"]
          expect: ["1", "0"]
          count: {allowed: "1", denied: "0"}
    load: {concurrency: 5}
    iterations: 1000
    max_duration: 60s
    thresholds:
      error_rate: 0
      checks:
        - {figure: counters.allowed, "==": 300}
        - {figure: counters.denied, "==": 700}
`, tokenBucket), map[string]string{"ADDR": e.Addr()})
	st := a.Steps[0]
	c := admin(t, e.Addr())
	if st.Counters["allowed"] != 300 || st.Counters["denied"] != 700 || st.Errors != 0 {
		t.Fatalf("counters %v, errors %d %v; want allowed 300, denied 700", st.Counters, st.Errors, st.ErrorKinds)
	}
	for _, ch := range st.Checks {
		if !ch.OK {
			t.Errorf("check %s failed: %v", ch.Name, ch)
		}
	}
	if got := doInt(t, c, "GET", "bucket"); got != 1000 {
		t.Errorf("the bucket counted %d takes, want 1000", got)
	}
	if sha, eval := calls(t, c, "evalsha"), calls(t, c, "eval"); sha != 1000 || eval < 1 || eval > 5 {
		t.Errorf("server: %d EVALSHA, %d EVAL; want 1000 EVALSHA and an EVAL per NOSCRIPT (1 to 5)", sha, eval)
	}
}

// TestErrorKindsByPrefix: Redis errors are counted by their prefix, a
// reply outside expect as unexpected_reply.
func TestErrorKindsByPrefix(t *testing.T) {
	e := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: errs
    runner: redis
    redis:
      addr: ${ADDR}
      setup: [[SET, str, text]]
      commands:
        - {name: wrongtype, cmd: [LPUSH, str, x]}
        - {name: noscript, cmd: [EVALSHA, "0000000000000000000000000000000000000000", "0"]}
        - {name: err, cmd: [NOSUCHCOMMAND]}
        - {name: unexpected, cmd: [GET, str], expect: [other]}
    load: {concurrency: 2}
    iterations: 400
    max_duration: 60s
`, map[string]string{"ADDR": e.Addr()})
	st := a.Steps[0]
	if st.Errors != 400 {
		t.Fatalf("errors %d of %d, want all", st.Errors, st.Requests)
	}
	for name, kind := range map[string]string{"wrongtype": "wrongtype", "noscript": "noscript", "err": "err", "unexpected": KindUnexpected} {
		n := st.ByName[name]
		if n.Requests == 0 || st.ErrorKinds[kind] != n.Requests || n.Errors != n.Requests {
			t.Errorf("%s: %d requests, %d errors, %d of kind %s (kinds %v)", name, n.Requests, n.Errors, st.ErrorKinds[kind], kind, st.ErrorKinds)
		}
	}
	c := admin(t, e.Addr())
	if got := doInt(t, c, "EXISTS", "x"); got != 0 || do(t, c, "GET", "str") != "text" {
		t.Errorf("the server's data changed")
	}
}

// TestFlowCapturesReplies: a flow's step captures a reply (the id INCR
// gave) that later steps' arguments read.
func TestFlowCapturesReplies(t *testing.T) {
	e := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: users
    runner: redis
    redis:
      addr: ${ADDR}
      flow:
        - {name: id, cmd: [INCR, next_id], capture: {id: {regex: "^([0-9]+)$"}}}
        - {name: create, cmd: [HSET, "user:{{.id}}", name, "n{{.id}}"], expect: ["1"]}
        - {name: read, cmd: [HGET, "user:{{.id}}", name], capture: {name: {regex: "^n([0-9]+)$"}}}
        - {name: check, cmd: [SET, "seen:{{.name}}", "{{.id}}"], expect: [OK]}
    load: {concurrency: 4}
    iterations: 200
    max_duration: 60s
`, map[string]string{"ADDR": e.Addr()})
	st := a.Steps[0]
	if st.Errors != 0 || st.Requests != 800 {
		t.Fatalf("requests %d, errors %d %v; want 4 steps × 200, none failed", st.Requests, st.Errors, st.ErrorKinds)
	}
	c := admin(t, e.Addr())
	for id := 1; id <= 200; id++ {
		if got := do(t, c, "GET", "seen:"+strconv.Itoa(id)); got != strconv.Itoa(id) {
			t.Fatalf("seen:%d = %q: the captures did not carry the id", id, got)
		}
	}
}

// TestSubscribersCountMessages: subscribers held for the step count
// exactly the messages the server delivered (PUBLISH's receivers),
// and their lag is read from the payload's ts.
func TestSubscribersCountMessages(t *testing.T) {
	e := startServer(t)
	c := admin(t, e.Addr())
	var (
		wg        sync.WaitGroup
		delivered int64
	)
	wg.Go(func() {
		waitFor(t, 20*time.Second, "5 subscribers", func() bool {
			return do(t, c, "PUBSUB", "NUMSUB", "news") == "news\n5" && do(t, c, "PUBSUB", "NUMPAT") == "1"
		})
		for i := range 100 {
			ts := strconv.FormatInt(time.Now().Add(-50*time.Millisecond).UnixMilli(), 10)
			delivered += doInt(t, c, "PUBLISH", "news", `{"i":`+strconv.Itoa(i)+`,"ts":`+ts+`}`)
			delivered += doInt(t, c, "PUBLISH", "other.x", "no ts")
		}
	})
	p := runnertest.ParsePlan(t, testRegistry, `
version: 1
groups:
  - id: subs
    runner: redis
    redis:
      addr: ${ADDR}
      subscribe: {channels: [news], patterns: ["other.*"], subscribers: 5}
    duration: 4s
    thresholds:
      checks: [{figure: counters.messages, "==": 1000}]
`, map[string]string{"ADDR": e.Addr()})
	a := runSession(t, p)
	wg.Wait()
	st := a.Steps[0]
	if delivered != 1000 || st.Counters[CounterMessages] != delivered || st.Requests != delivered || st.Errors != 0 {
		t.Fatalf("delivered %d, counted %d messages, %d requests, %d errors %v", delivered, st.Counters[CounterMessages], st.Requests, st.Errors, st.ErrorKinds)
	}
	if m := st.LatencyMS.Max; m < 50 || m > 10_000 {
		t.Errorf("max latency %.1f ms; the news messages' ts said 50 ms ago", m)
	}
}

// runSession runs the plan's first group through a session of its own.
func runSession(t *testing.T, p *plan.Plan) *artifacts.Artifact {
	t.Helper()
	s, err := engine.NewSession(testRegistry, p, p.Groups[0], engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return runnertest.RunSession(t, context.Background(), s)
}
