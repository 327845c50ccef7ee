package quicload

import (
	"fmt"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/runnertest"
)

func TestThroughEngine(t *testing.T) {
	srv, _ := startDemo(t)
	for _, policy := range []string{ConnPooled, ConnFresh} {
		t.Run(policy, func(t *testing.T) {
			a := runnertest.RunPlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: q
    runner: quic
    quic: {mode: stream, addr: %q, request: "FETCH /e2e.md", expect: "# /e2e.md", connection: %s, insecure_skip_verify: true}
    load: {concurrency: 4}
    duration: 500ms
`, srv.Addr(), policy), nil)
			st := a.Steps[0]
			if st.Requests == 0 || st.Errors != 0 {
				t.Fatalf("requests %d errors %d (%v)", st.Requests, st.Errors, st.ErrorKinds)
			}
			_, hs := st.ExtraMS["handshake"]
			if hs != (policy == ConnFresh) {
				t.Errorf("%s: handshake extra present = %v", policy, hs)
			}
		})
	}
}

func TestPlanValidation(t *testing.T) {
	_, err := plan.ParsePlan("bad.yaml", []byte(`version: 1
groups:
  - id: q
    runner: quic
    quic: {mode: stream, addr: "nohost", connection: shared}
    load: {concurrency: 1}
`), func(string) (string, bool) { return "", false }, testRegistry)
	if err == nil {
		t.Fatal("a bad quic section passed validation")
	}
	for _, want := range []string{`bad.yaml:5:11: quic: addr "nohost"`, "request is required", `connection "shared"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("validation error lacks %q:\n%v", want, err)
		}
	}
}
