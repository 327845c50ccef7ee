package wsload

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestSecretsReachTheServerOnly: a token given as a secret ${VAR} goes
// in the handshake's header and URL, and nowhere in the artifact: not in
// its config, nor in the error samples of a connect that failed with
// the URL in its message.
func TestSecretsReachTheServerOnly(t *testing.T) {
	const token = "canary-7f3a9c2e"
	s := startServer(t)
	yaml := `
version: 1
groups:
  - id: secret
    runner: websocket
    websocket:
      url: "${URL}?token=${API_TOKEN}"
      headers: {Authorization: "Bearer ${API_TOKEN}"}
      messages: [{text: hi}]
    load: {concurrency: 1}
    iterations: 5
    max_duration: 30s
`
	a := runnertest.RunPlan(t, testRegistry, yaml, map[string]string{"URL": s.url("/echo"), "API_TOKEN": token})
	if a.Steps[0].Errors != 0 || s.header("Authorization")[0] != "Bearer "+token {
		t.Fatalf("errors %v; server saw Authorization %q", a.Steps[0].ErrorKinds, s.header("Authorization"))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "ws://" + ln.Addr().String() + "/x"
	_ = ln.Close()
	b := runnertest.RunPlan(t, testRegistry, yaml, map[string]string{"URL": refused, "API_TOKEN": token})
	if b.Steps[0].ErrorKinds[KindRefused] != 5 {
		t.Errorf("kinds %v, want 5 refused", b.Steps[0].ErrorKinds)
	}
	for _, art := range []any{a, b} {
		j, err := json.Marshal(art)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(j), token) {
			t.Errorf("the artifact holds the token: %s", j)
		}
	}
	t.Logf("samples %q", b.Steps[0].ErrorSamples)
	if len(b.Steps[0].ErrorSamples) == 0 {
		t.Errorf("no error samples: the refusal's message was not kept")
	}
}
