package wsload

import (
	"strconv"
	"testing"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestEchoMixMatchesServer: a counted mix of text and binary messages,
// each awaiting its echo; every figure equals the server's own count:
// messages and bytes each way, one handshake per worker, by_name.
func TestEchoMixMatchesServer(t *testing.T) {
	s := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: echo
    runner: websocket
    websocket:
      url: ${URL}
      subprotocols: [chat]
      messages:
        - {name: hello, text: 'hello {{seq}}', weight: 3}
        - {name: blob, binary: 'bin-{{rand_int 1 9}}'}
    load: {concurrency: 4}
    iterations: 2000
    max_duration: 60s
    thresholds:
      error_rate: 0
      checks:
        - {figure: counters.messages_out, "==": 2000}
        - {figure: counters.messages_in, "==": 2000}
`, map[string]string{"URL": s.url("/echo")})
	st := a.Steps[0]
	hello, blob := st.ByName["hello"].Requests, st.ByName["blob"].Requests
	if st.Requests != 2000 || st.Errors != 0 || hello+blob != 2000 || blob == 0 {
		t.Fatalf("requests %d (hello %d, blob %d), errors %d %v", st.Requests, hello, blob, st.Errors, st.ErrorKinds)
	}
	c := st.Counters
	if s.received.Load() != 2000 || s.sent.Load() != 2000 || c[CounterMessagesOut] != 2000 || c[CounterMessagesIn] != 2000 {
		t.Errorf("server received %d, sent %d; counters %v", s.received.Load(), s.sent.Load(), c)
	}
	if c[CounterBytesOut] != s.bytesIn.Load() || c[CounterBytesIn] != s.bytesOut.Load() || c[CounterBytesOut] == 0 {
		t.Errorf("bytes out %d in %d; the server's in %d out %d", c[CounterBytesOut], c[CounterBytesIn], s.bytesIn.Load(), s.bytesOut.Load())
	}
	if s.accepted.Load() != 4 || c[CounterConnects] != 4 || st.ExtraMS[ExtraConnect].Max <= 0 {
		t.Errorf("server accepted %d connections, counted %d (connect max %.3f ms); want 4, one per worker", s.accepted.Load(), c[CounterConnects], st.ExtraMS[ExtraConnect].Max)
	}
	for _, p := range s.protos {
		if p != "chat" {
			t.Errorf("negotiated subprotocol %q, want chat", p)
		}
	}
	for _, ch := range st.Checks {
		if !ch.OK {
			t.Errorf("check %s failed: %+v", ch.Name, ch)
		}
	}
}

// TestAwaitMatchAndCount: await.match skips the messages before the one
// it waits for (each read and counted), await.count waits for that many.
func TestAwaitMatchAndCount(t *testing.T) {
	s := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: await
    runner: websocket
    websocket:
      url: ${URL}
      messages:
        - {name: match, text: 'echo {{seq}}', await: {match: '^echo \d+$'}}
        - {name: count, text: 'three', await: {count: 3}}
    load: {concurrency: 2}
    iterations: 300
    max_duration: 60s
`, map[string]string{"URL": s.url("/echo?noise=2")})
	st := a.Steps[0]
	if st.Requests != 300 || st.Errors != 0 {
		t.Fatalf("requests %d, errors %d %v", st.Requests, st.Errors, st.ErrorKinds)
	}
	// match reads 2 noise and its echo, count the same 3 messages.
	if got := st.Counters[CounterMessagesIn]; got != s.sent.Load() {
		t.Errorf("messages in %d, server sent %d", got, s.sent.Load())
	}
	if s.received.Load() != 300 || s.sent.Load() != 900 {
		t.Errorf("server received %d, sent %d; want 300 and 900", s.received.Load(), s.sent.Load())
	}
}

// TestFlowCapturesReplies: a flow's step captures a value from its reply
// that the next step's message reads, and headers are templated from
// the step's vars.
func TestFlowCapturesReplies(t *testing.T) {
	s := startServer(t)
	s.keep = true
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: flow
    runner: websocket
    vars: {team: [red]}
    websocket:
      url: ${URL}
      headers: {X-Team: '{{.team}}'}
      flow:
        - {name: id, text: '{"id": "{{seq}}"}', capture: {id: {json: $.id}}}
        - {name: use, text: 'user-{{.id}}', await: {match: '^user-'}}
    load: {concurrency: 3}
    iterations: 100
    max_duration: 60s
`, map[string]string{"URL": s.url("/echo")})
	st := a.Steps[0]
	if st.Requests != 200 || st.Errors != 0 || st.ByName["use"].Requests != 100 {
		t.Fatalf("requests %d (by name %v), errors %d %v; want 2 steps × 100", st.Requests, st.ByName, st.Errors, st.ErrorKinds)
	}
	seen := map[string]bool{}
	for _, m := range s.textsWith("user-") {
		seen[m] = true
	}
	for id := 1; id <= 100; id++ {
		if !seen["user-"+strconv.Itoa(id)] {
			t.Fatalf("the server never got user-%d: the captures did not carry the id (got %d)", id, len(seen))
		}
	}
	for _, v := range s.header("X-Team") {
		if v != "red" {
			t.Errorf("X-Team %q, want red", v)
		}
	}
}

// TestCloseCodeIsTheKind: a server that answers with a close frame makes
// the operation an error named by its code, and the worker connects
// again for the next one.
func TestCloseCodeIsTheKind(t *testing.T) {
	s := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: close
    runner: websocket
    websocket:
      url: ${URL}
      messages: [{text: 'x'}]
    load: {concurrency: 2}
    iterations: 50
    max_duration: 60s
`, map[string]string{"URL": s.url("/drop?after=0&code=1011")})
	st := a.Steps[0]
	if st.Requests != 50 || st.ErrorKinds["close_1011"] != 50 {
		t.Fatalf("requests %d, kinds %v; want 50 of close_1011", st.Requests, st.ErrorKinds)
	}
	if s.accepted.Load() != 50 || st.Counters[CounterConnects] != 50 {
		t.Errorf("server accepted %d, connects %d; want a connection per operation", s.accepted.Load(), st.Counters[CounterConnects])
	}
}

// TestRefusedHandshakeIsItsStatus: a handshake answered 404 is an error
// of kind status_4xx, each operation trying again.
func TestRefusedHandshakeIsItsStatus(t *testing.T) {
	s := startServer(t)
	st := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: nope
    runner: websocket
    websocket: {url: "${URL}", messages: [{text: x}]}
    load: {concurrency: 1}
    iterations: 10
    max_duration: 30s
`, map[string]string{"URL": s.url("/nope")}).Steps[0]
	if st.Requests != 10 || st.ErrorKinds["status_4xx"] != 10 || s.accepted.Load() != 0 {
		t.Errorf("requests %d, kinds %v, server accepted %d; want 10 status_4xx", st.Requests, st.ErrorKinds, s.accepted.Load())
	}
}
