package loads_test

import (
	"fmt"
	"testing"

	"github.com/benchtui/benchtui/runners/demo"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestGRPCBesideHTTP: a gRPC load (an open loop of Echo calls, described
// by reflection) beside a closed HTTP loop: each load's requests are what
// its server counted, under the load's name.
func TestGRPCBesideHTTP(t *testing.T) {
	srv, served := runnertest.CountingServer(t, 0)
	g, err := demo.ServeGRPC("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	a := runnertest.RunPlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: mixed
    duration: 1s
    loads:
      - name: web
        runner: http
        http: {requests: [{url: "%s/a"}]}
        load: {concurrency: 2}
      - name: rpc
        runner: grpc
        grpc: {target: "%s", method: benchtui.demo.Bench/Ticks, message: '{"count": 2}'}
        load: {rate: 100, max_in_flight: 8}
`, srv.URL, g.Addr()), nil)
	st := a.Steps[0]
	web, rpc := st.ByName["web"], st.ByName["rpc"]
	if st.Errors != 0 || web.Requests != served.Load() || rpc.Requests == 0 || rpc.Requests != g.Calls("Ticks") {
		t.Fatalf("web %d (server %d), rpc %d (server %d), errors %d %v", web.Requests, served.Load(), rpc.Requests, g.Calls("Ticks"), st.Errors, st.ErrorKinds)
	}
	if got := st.Counters["messages_received"]; got != 2*rpc.Requests {
		t.Errorf("received %d messages, want 2 per call", got)
	}
	assertLoadsAddUp(t, st, "web", "rpc")
}
