package grpcload

import (
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/benchtui/benchtui/runners/demo"
)

// TestTLSWithCAFileOrSkipVerify: a TLS server is reached with its CA
// from a file relative to the plan, or with verification skipped; every
// call is one the server answered.
func TestTLSWithCAFileOrSkipVerify(t *testing.T) {
	conf, err := demo.SelfSignedTLS()
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, grpc.Creds(credentials.NewTLS(conf)))
	dir := planDir(t)
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), demo.CertPEM(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tls := range []string{"{ca_file: ca.pem}", "{insecure_skip_verify: true}"} {
		a := runIn(t, dir, `
version: 1
groups:
  - id: tls
    runner: grpc
    grpc:
      target: ${ADDR}
      tls: `+tls+`
      method: benchtui.demo.Bench/Echo
    load: {concurrency: 2}
    iterations: 50
    max_duration: 60s
`, map[string]string{"ADDR": s.Addr().String()})
		noErrors(t, &a.Steps[0])
		if a.Steps[0].Requests != 50 {
			t.Errorf("tls %s: %d requests", tls, a.Steps[0].Requests)
		}
	}
	if s.Calls("Echo") != 100 {
		t.Errorf("the server answered %d calls, want 100", s.Calls("Echo"))
	}
}
