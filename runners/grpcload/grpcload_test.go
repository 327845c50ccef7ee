package grpcload

import (
	"testing"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestUnaryFromProtoMatchesServer: a counted closed loop of a templated
// unary call, its method read from a .proto file found on an import path
// relative to the plan file: the step's requests are the calls the server
// answered, none failed, and its latency is in the histogram.
func TestUnaryFromProtoMatchesServer(t *testing.T) {
	s := startServer(t)
	dir := planDir(t)
	a := runIn(t, dir, `
version: 1
groups:
  - id: echo
    runner: grpc
    grpc:
      target: ${ADDR}
      proto: protos/benchtui/bench.proto
      import_paths: [protos]
      method: benchtui.demo.Bench/Echo
      message: '{"name": "u{{seq}}", "n": {{seq}}}'
    load: {concurrency: 8}
    iterations: 2000
    max_duration: 60s
`, map[string]string{"ADDR": s.Addr().String()})
	st := a.Steps[0]
	noErrors(t, &st)
	if st.Requests != 2000 || s.Calls("Echo") != 2000 || s.MessagesIn() != 2000 {
		t.Fatalf("requests %d; the server answered %d Echo calls, received %d messages", st.Requests, s.Calls("Echo"), s.MessagesIn())
	}
	if st.LatencyMS.P50 <= 0 || st.LatencyMS.Max < st.LatencyMS.P50 {
		t.Errorf("latency %+v", st.LatencyMS)
	}
}

// TestReflectionOpenLoopMatchesServer: without a .proto file the method
// comes from the server's reflection; an open loop's arrivals over two
// shared connections are the calls the server answered.
func TestReflectionOpenLoopMatchesServer(t *testing.T) {
	s := startServer(t)
	a := runnertest.RunPlan(t, testRegistry, `
version: 1
groups:
  - id: open
    runner: grpc
    grpc:
      target: ${ADDR}
      connections: 2
      calls:
        - {name: echo, method: /benchtui.demo.Bench/Echo, message: '{"name": "x"}'}
    load: {rate: 200, max_in_flight: 16}
    duration: 1s
`, map[string]string{"ADDR": s.Addr().String()})
	st := a.Steps[0]
	noErrors(t, &st)
	if st.Requests < 100 || st.Requests != s.Calls("Echo") || st.ByName["echo"].Requests != st.Requests {
		t.Fatalf("requests %d (by name %d), the server answered %d", st.Requests, st.ByName["echo"].Requests, s.Calls("Echo"))
	}
	if st.OfferedRPS < 150 || st.OfferedRPS > 250 {
		t.Errorf("offered %v rps, want about 200", st.OfferedRPS)
	}
}
