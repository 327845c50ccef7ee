package wsload

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestSecureEcho: wss:// against a self-signed server round-trips with
// insecure_skip_verify, and without it each connect is an error of kind
// tls.
func TestSecureEcho(t *testing.T) {
	s := startServer(t)
	tlsSrv := httptest.NewTLSServer(s.srv.Config.Handler)
	defer tlsSrv.Close()
	url := "wss://" + strings.TrimPrefix(tlsSrv.URL, "https://") + "/echo"
	const plan = `
version: 1
groups:
  - id: wss
    runner: websocket
    websocket:
      url: "${URL}"
      insecure_skip_verify: ${SKIP}
      messages: [{text: hi}]
    load: {concurrency: 2}
    iterations: 20
    max_duration: 30s
`
	ok := runnertest.RunPlan(t, testRegistry, plan, map[string]string{"URL": url, "SKIP": "true"}).Steps[0]
	if ok.Requests != 20 || ok.Errors != 0 || s.received.Load() != 20 {
		t.Errorf("skip verify: requests %d, errors %d %v; server received %d", ok.Requests, ok.Errors, ok.ErrorKinds, s.received.Load())
	}
	bad := runnertest.RunPlan(t, testRegistry, plan, map[string]string{"URL": url, "SKIP": "false"}).Steps[0]
	if bad.ErrorKinds[KindTLS] != 20 {
		t.Errorf("verify: kinds %v, want 20 tls", bad.ErrorKinds)
	}
}
