package grpcload

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/benchtui/benchtui/runners/engine"
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
    iterations: 1000
    max_duration: 60s
`, map[string]string{"ADDR": s.Addr().String()})
	st := a.Steps[0]
	noErrors(t, &st)
	if st.Requests != 1000 || s.Calls("Echo") != 1000 || s.MessagesIn() != 1000 {
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

// TestReflectionFallsBackToV1alpha: a server with only the older
// reflection service (v1alpha) describes its methods as well; one with
// none makes the group fail at its start, saying so.
func TestReflectionFallsBackToV1alpha(t *testing.T) {
	for _, blocked := range []string{"/grpc.reflection.v1.", "/grpc.reflection."} {
		block := func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if strings.HasPrefix(info.FullMethod, blocked) {
				return status.Error(codes.Unimplemented, "no such service")
			}
			return h(srv, ss)
		}
		s := startServer(t, grpc.StreamInterceptor(block))
		p := runnertest.ParsePlan(t, testRegistry, `
version: 1
groups:
  - id: alpha
    runner: grpc
    grpc: {target: "${ADDR}", method: benchtui.demo.Bench/Echo}
    load: {concurrency: 2}
    iterations: 20
    max_duration: 60s
`, map[string]string{"ADDR": s.Addr().String()})
		sess, err := engine.NewSession(testRegistry, p, p.Groups[0], engine.SessionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sess.Start(context.Background())
		for range sess.Snapshots() {
		}
		<-sess.Done()
		if blocked == "/grpc.reflection." {
			if err := sess.Err(); err == nil || !strings.Contains(err.Error(), "server reflection") || !strings.Contains(err.Error(), "no proto file given") {
				t.Errorf("without reflection: %v", err)
			}
			continue
		}
		if err := sess.Err(); err != nil || sess.Result().Steps[0].Requests != 20 || s.Calls("Echo") != 20 {
			t.Errorf("v1alpha only: %v, the server answered %d", err, s.Calls("Echo"))
		}
	}
}
