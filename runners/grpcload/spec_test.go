package grpcload

import (
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
)

// TestSectionProblems: each mistake is named by its key.
func TestSectionProblems(t *testing.T) {
	for section, want := range map[string]string{
		`{target: "nohost", method: a.B/C}`:                                             "grpc.target",
		`{target: "h:1", method: "a.B.C"}`:                                              "grpc.method",
		`{target: "h:1", method: a.B/C, connections: "0"}`:                              "grpc.connections",
		`{target: "h:1", method: a.B/C, connections: many}`:                             "grpc.connections",
		`{target: "h:1", calls: [{method: a.B/C}], method: a.B/C}`:                      "grpc.method",
		`{target: "h:1", calls: [{method: a.B/C}], message: "{}"}`:                      "grpc.message",
		`{target: "h:1", method: a.B/C, metadata: {Upper: x}}`:                          "grpc.metadata.Upper",
		`{target: "h:1", method: a.B/C, metadata: {grpc-timeout: "1"}}`:                 "grpc.metadata.grpc-timeout",
		`{target: "h:1", method: a.B/C, import_paths: [x]}`:                             "grpc.import_paths",
		`{target: "h:1", method: a.B/C, expect_codes: [NOPE]}`:                          "grpc.expect_codes",
		`{target: "h:1", method: a.B/C, tls: {ca_file: a, insecure_skip_verify: true}}`: "grpc.tls.ca_file",
		`{target: "h:1", calls: [{method: a.B/C, capture: {x: {json: "$.a"}}}]}`:        "grpc.calls[0].capture",
		`{target: "h:1", flow: [{method: a.B/C, weight: 2}]}`:                           "grpc.flow[0].weight",
		`{target: "h:1", method: a.B/C, message: '{"a": "{{.nope}}"}'}`:                 "grpc.message",
	} {
		_, err := plan.ParsePlan("t.yaml", []byte("version: 1\ngroups:\n  - id: g\n    runner: grpc\n    grpc: "+section+"\n    load: {concurrency: 1}\n    duration: 1s\n"), nil, testRegistry)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error naming %s", section, err, want)
		}
	}
}

// TestCodeKinds: status codes in snake case.
func TestCodeKinds(t *testing.T) {
	for code, want := range map[codes.Code]string{
		codes.Unavailable: "grpc_unavailable", codes.DeadlineExceeded: "grpc_deadline_exceeded",
		codes.ResourceExhausted: "grpc_resource_exhausted", codes.Code(42): "grpc_code_42", codes.OK: "grpc_ok",
	} {
		if got := codeKind(code); got != want {
			t.Errorf("%v: %s, want %s", code, got, want)
		}
	}
}

// TestStreamKeysNeedStreams: messages is refused for a method that takes
// one request, await for one that sends one reply, when the group starts.
func TestStreamKeysNeedStreams(t *testing.T) {
	dir := planDir(t)
	for call, want := range map[string]string{
		"{method: benchtui.demo.Bench/Echo, messages: 3}": "messages: benchtui.demo.Bench.Echo takes one request",
		"{method: benchtui.demo.Bench/Sum, await: 2}":     "await: benchtui.demo.Bench.Sum sends one reply",
	} {
		p, err := plan.ParsePlan(filepath.Join(dir, "bench.yaml"), []byte(`
version: 1
groups:
  - id: g
    runner: grpc
    grpc: {target: "127.0.0.1:1", proto: protos/benchtui/bench.proto, calls: [`+call+`]}
    load: {concurrency: 1}
    duration: 1s
`), nil, testRegistry)
		if err != nil {
			t.Fatal(err)
		}
		_, err = newKind(p.Groups[0], &runners.RunEnv{Plan: p})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", call, err, want)
		}
	}
}
