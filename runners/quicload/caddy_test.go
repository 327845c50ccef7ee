//go:build unix

package quicload

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestHTTP3AgainstCaddy sends HTTP/3 GETs, pooled and on fresh
// connections, to Caddy, a third-party HTTP/3 server (.ci/run installs it
// from Debian's packages). Caddy picks its certificate by SNI, so the
// client names the server "localhost" while dialling 127.0.0.1.
func TestHTTP3AgainstCaddy(t *testing.T) {
	caddy, err := exec.LookPath("caddy")
	if err != nil {
		t.Skip("caddy is not installed (apt-get install caddy; .ci/run does)")
	}
	port := freeTCPAndUDPPort(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "Caddyfile")
	os.WriteFile(conf, []byte(fmt.Sprintf(`{
	admin off
	auto_https disable_redirects
	skip_install_trust
	storage file_system %[1]s/data
	servers {
		protocols h1 h2 h3
	}
}
https://localhost:%[2]d {
	bind 127.0.0.1
	tls internal
	respond "hello from caddy" 200
}
`, dir, port)), 0o644)
	cmd := exec.Command(caddy, "run", "--config", conf, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir+"/data", "XDG_CONFIG_HOME="+dir+"/config")
	// Caddy's own log is the evidence when it does not come up: kept in a
	// file and printed on failure.
	logPath := filepath.Join(dir, "caddy.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("caddy's log:\n%s", b)
		}
	})
	waitHTTPS(t, fmt.Sprintf("https://127.0.0.1:%d/", port))

	a := runnertest.RunPlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: pooled
    runner: quic
    quic: {mode: http3, url: "https://127.0.0.1:%[1]d/", server_name: localhost, insecure_skip_verify: true}
    load: {concurrency: 4}
    duration: 1s
`, port), nil)
	if st := a.Steps[0]; st.Requests < 100 || st.Errors != 0 {
		t.Errorf("pooled: %d requests, %d errors %v", st.Requests, st.Errors, st.ErrorKinds)
	}
	a = runnertest.RunPlan(t, testRegistry, fmt.Sprintf(`version: 1
groups:
  - id: fresh
    runner: quic
    quic: {mode: http3, url: "https://127.0.0.1:%[1]d/", server_name: localhost, insecure_skip_verify: true, connection: fresh}
    load: {concurrency: 2}
    duration: 1s
`, port), nil)
	if st := a.Steps[0]; st.Requests < 10 || st.Errors != 0 || st.ExtraMS["handshake"].P50 == 0 {
		t.Errorf("fresh: %d requests, %d errors %v, handshake %+v", st.Requests, st.Errors, st.ErrorKinds, st.ExtraMS)
	}
}

// freeTCPAndUDPPort finds a loopback port free for both TCP and UDP.
func freeTCPAndUDPPort(t *testing.T) int {
	t.Helper()
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		pc, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", port))
		ln.Close()
		if err == nil {
			pc.Close()
			return port
		}
	}
	t.Fatal("no port free for both TCP and UDP")
	return 0
}

// waitHTTPS waits until url answers over TLS (Caddy makes its internal
// certificate at start).
func waitHTTPS(t *testing.T, url string) {
	t.Helper()
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "localhost"},
	}}
	defer client.CloseIdleConnections()
	// Caddy makes its internal CA and certificate on start: on a busy
	// machine that takes a while, so the wait is generous.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := client.Get(url); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("caddy did not answer at %s", url)
}
