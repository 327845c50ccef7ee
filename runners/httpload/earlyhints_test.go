package httpload

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
)

// earlyHintsServer is a raw HTTP/1.1 server on loopback that answers
// every request with 103 Early Hints and then, in a write of its own,
// 200; it counts the requests it read.
func earlyHintsServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var served atomic.Int64
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serveEarlyHints(conn, &served)
		}
	}()
	return "http://" + ln.Addr().String(), &served
}

// serveEarlyHints answers the requests of one connection (GETs: heads
// alone) until it closes.
func serveEarlyHints(conn net.Conn, served *atomic.Int64) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	for {
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if line == "\r\n" {
				break
			}
		}
		served.Add(1)
		if _, err := conn.Write([]byte("HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n")); err != nil {
			return
		}
		if _, err := conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err != nil {
			return
		}
	}
}

// TestEarlyHintsAreNotAnswers: against a server that sends 103 Early
// Hints before every 200, each client counts the requests the server
// read, every one a 200: a 1xx reply answers nothing.
func TestEarlyHintsAreNotAnswers(t *testing.T) {
	t.Parallel()
	clients := append([]string{}, mixClients...)
	if strings.Contains(strings.Join(mixClients, " "), clientEpoll) {
		clients = append(clients, clientEpoll+", pipeline: 4")
	}
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			url, served := earlyHintsServer(t)
			st := runGroup(t, fmt.Sprintf(`  - id: hints
    runner: http
    http: {requests: [{url: "%s/"}], client: %s}
    load: {concurrency: 4}
    duration: 500ms
`, url, client), nil).Steps[0]
			if st.Requests == 0 || st.Requests != served.Load() || st.Errors != 0 ||
				len(st.Status) != 1 || st.Status["200"] != st.Requests {
				t.Errorf("counted %d requests (%d errors, status %v, kinds %v), the server read %d; want equal, all 200",
					st.Requests, st.Errors, st.Status, st.ErrorKinds, served.Load())
			}
		})
	}
}
