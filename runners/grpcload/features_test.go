package grpcload

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestStreamsCountMessages: server, client and bidi streams in one mix:
// the messages the runner counted each way are the ones the server
// received and sent, and each stream call is one the server answered.
func TestStreamsCountMessages(t *testing.T) {
	s := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: streams
    runner: grpc
    grpc:
      target: ${ADDR}
      calls:
        - {name: ticks, method: benchtui.demo.Bench/Ticks, message: '{"count": 5}'}
        - {name: sum, method: benchtui.demo.Bench/Sum, message: '{"n": {{seq}}}', messages: 4}
        - {name: chat, method: benchtui.demo.Bench/Chat, message: '{"name": "c{{seq}}"}', messages: 3}
    load: {concurrency: 4}
    iterations: 600
    max_duration: 60s
`, map[string]string{"ADDR": s.Addr().String()})
	st := a.Steps[0]
	noErrors(t, &st)
	ticks, sum, chat := st.ByName["ticks"].Requests, st.ByName["sum"].Requests, st.ByName["chat"].Requests
	if ticks+sum+chat != 600 || ticks != s.Calls("Ticks") || sum != s.Calls("Sum") || chat != s.Calls("Chat") {
		t.Fatalf("ticks %d, sum %d, chat %d; the server answered %d, %d, %d", ticks, sum, chat, s.Calls("Ticks"), s.Calls("Sum"), s.Calls("Chat"))
	}
	sent, received := st.Counters[CounterSent], st.Counters[CounterReceived]
	if sent != ticks+4*sum+3*chat || sent != s.MessagesIn() {
		t.Errorf("sent %d messages, the server received %d; want %d", sent, s.MessagesIn(), ticks+4*sum+3*chat)
	}
	if received != 5*ticks+sum+3*chat || received != s.MessagesOut() {
		t.Errorf("received %d messages, the server sent %d; want %d", received, s.MessagesOut(), 5*ticks+sum+3*chat)
	}
}

// TestAwaitEndsServerStream: a server stream ends after its await count
// (the rest of its ticks never sent), and one shorter than it fails as
// stream_ended_early.
func TestAwaitEndsServerStream(t *testing.T) {
	s := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: await
    runner: grpc
    grpc:
      target: ${ADDR}
      calls:
        - {name: three, method: benchtui.demo.Bench/Ticks, message: '{"count": 1000, "every_ms": 2}', await: 3}
        - {name: short, method: benchtui.demo.Bench/Ticks, message: '{"count": 2}', await: 3}
    load: {concurrency: 2}
    iterations: 100
    max_duration: 60s
`, map[string]string{"ADDR": s.Addr().String()})
	st := a.Steps[0]
	three, short := st.ByName["three"], st.ByName["short"]
	if three.Requests+short.Requests != 100 || three.Errors != 0 || short.Errors != short.Requests || st.ErrorKinds[KindShortStream] != short.Requests {
		t.Fatalf("three %+v, short %+v, kinds %v", three, short, st.ErrorKinds)
	}
	if got, want := st.Counters[CounterReceived], 3*three.Requests+2*short.Requests; got != want {
		t.Errorf("received %d messages, want %d", got, want)
	}
	if s.Calls("Ticks") != short.Requests {
		t.Errorf("the server finished %d Ticks calls, want only the %d short ones", s.Calls("Ticks"), short.Requests)
	}
}

// TestStatusCodesAsErrorKinds: a status other than OK is an error of
// kind grpc_<code>, a call past load.timeout is a timeout, and a request
// its message type does not take is bad_message (and never sent).
func TestStatusCodesAsErrorKinds(t *testing.T) {
	s := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: kinds
    runner: grpc
    grpc:
      target: ${ADDR}
      calls:
        - {name: unavailable, method: benchtui.demo.Bench/Fail, message: '{"code": 14, "message": "down"}'}
        - {name: not_found, method: benchtui.demo.Bench/Fail, message: '{"code": 5}'}
        - {name: slow, method: benchtui.demo.Bench/Echo, message: '{"delay_ms": 5000}'}
        - {name: bad, method: benchtui.demo.Bench/Echo, message: '{"name": "{{seq}}", "no_such_field": 1}'}
    load: {concurrency: 8, timeout: 200ms}
    iterations: 80
    max_duration: 60s
`, map[string]string{"ADDR": s.Addr().String()})
	st := a.Steps[0]
	if st.Requests != 80 || st.Errors != 80 {
		t.Fatalf("requests %d, errors %d %v; want all 80 failed", st.Requests, st.Errors, st.ErrorKinds)
	}
	for name, kind := range map[string]string{"unavailable": "grpc_unavailable", "not_found": "grpc_not_found", "slow": KindTimeout, "bad": KindBadMessage} {
		n := st.ByName[name]
		if n.Requests == 0 || n.Errors != n.Requests || st.ErrorKinds[kind] != n.Requests {
			t.Errorf("%s: %+v, %d of kind %s (kinds %v)", name, n, st.ErrorKinds[kind], kind, st.ErrorKinds)
		}
	}
	if m := st.LatencyMS.Max; m < 150 || m > 2000 {
		t.Errorf("max latency %.0f ms; the slow calls' deadline was 200 ms", m)
	}
	if s.Calls("Echo") != 0 {
		t.Errorf("the server answered %d Echo calls: the bad ones were sent, or the slow ones outlived their deadline", s.Calls("Echo"))
	}
	if !strings.Contains(strings.Join(st.ErrorSamples["grpc_unavailable"], " "), "down") {
		t.Errorf("samples %v", st.ErrorSamples)
	}
}

// TestFlowCapturesFromReplyJSON: a flow's step captures a field of the
// reply's JSON (the id the server gave) that the next step's message
// and metadata read; a secret ${VAR} in the metadata reaches the server
// and not the artifact.
func TestFlowCapturesFromReplyJSON(t *testing.T) {
	var (
		mu    sync.Mutex
		steps = map[string]int{}
		auth  = map[string]int{}
	)
	seen := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		mu.Lock()
		for _, v := range md.Get("authorization") {
			auth[v]++
		}
		for _, v := range md.Get("x-step") {
			steps[v]++
		}
		mu.Unlock()
		return h(ctx, req)
	}
	s := startServer(t, grpc.UnaryInterceptor(seen))
	const token = "s3cret-token-of-some-length"
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: flow
    runner: grpc
    grpc:
      target: ${ADDR}
      metadata: {authorization: "Bearer ${API_TOKEN}"}
      flow:
        - name: first
          method: benchtui.demo.Bench/Echo
          message: '{"name": "a"}'
          capture: {id: {json: "$.id"}}
        - name: second
          method: benchtui.demo.Bench/Echo
          message: '{"name": "id{{.id}}", "n": {{.id}}}'
          metadata: {x-step: "{{.id}}"}
          capture: {msg: {json: "$.message"}}
    load: {concurrency: 4}
    iterations: 100
    max_duration: 60s
`, map[string]string{"ADDR": s.Addr().String(), "API_TOKEN": token})
	st := a.Steps[0]
	noErrors(t, &st)
	if st.Requests != 200 || st.ByName["second"].Requests != 100 || s.Calls("Echo") != 200 {
		t.Fatalf("requests %d (second %d), server %d", st.Requests, st.ByName["second"].Requests, s.Calls("Echo"))
	}
	mu.Lock()
	defer mu.Unlock()
	if auth["Bearer "+token] != 200 {
		t.Errorf("the server saw authorization %v", auth)
	}
	if len(steps) != 100 || steps[""] != 0 {
		t.Errorf("the second steps carried %d distinct captured ids, want 100: %v", len(steps), steps)
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), token) {
		t.Errorf("the artifact holds the secret")
	}
}

// TestDataRowsUniqueEndTheStep: a data file's rows fill the message, each
// row once (mode unique): the step ends when they run out, with one call
// per row, each row's name seen by the server once.
func TestDataRowsUniqueEndTheStep(t *testing.T) {
	var (
		mu    sync.Mutex
		names = map[string]int{}
	)
	record := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		mu.Lock()
		names[fmt.Sprint(req)]++
		mu.Unlock()
		return h(ctx, req)
	}
	s := startServer(t, grpc.UnaryInterceptor(record))
	dir := planDir(t)
	rows := "user\n"
	for i := range 50 {
		rows += fmt.Sprintf("u%d\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "users.csv"), []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	a := runIn(t, dir, `
version: 1
groups:
  - id: rows
    runner: grpc
    data: {file: users.csv, mode: unique}
    grpc:
      target: ${ADDR}
      method: benchtui.demo.Bench/Echo
      message: '{"name": "{{.user}}"}'
    load: {concurrency: 4}
    duration: 30s
`, map[string]string{"ADDR": s.Addr().String()})
	st := a.Steps[0]
	noErrors(t, &st)
	mu.Lock()
	defer mu.Unlock()
	if st.Requests != 50 || s.Calls("Echo") != 50 || len(names) != 50 {
		t.Fatalf("requests %d, server %d, %d distinct names", st.Requests, s.Calls("Echo"), len(names))
	}
}

// TestExpectCodes: a status among a call's expect_codes is a success,
// and OK outside them an error of kind grpc_ok.
func TestExpectCodes(t *testing.T) {
	s := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: expect
    runner: grpc
    grpc:
      target: ${ADDR}
      calls:
        - {name: missing, method: benchtui.demo.Bench/Fail, message: '{"code": 5}', expect_codes: [NOT_FOUND, "14"]}
        - {name: found, method: benchtui.demo.Bench/Echo, expect_codes: [not_found]}
    load: {concurrency: 2}
    iterations: 100
    max_duration: 60s
`, map[string]string{"ADDR": s.Addr().String()})
	st := a.Steps[0]
	missing, found := st.ByName["missing"], st.ByName["found"]
	if missing.Requests+found.Requests != 100 || missing.Errors != 0 || found.Errors != found.Requests || st.ErrorKinds["grpc_ok"] != found.Requests {
		t.Fatalf("missing %+v, found %+v, kinds %v", missing, found, st.ErrorKinds)
	}
}
