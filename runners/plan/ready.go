package plan

import (
	"fmt"
	"net"
	"regexp"
	"strings"
)

// ReadyKind is what a readiness value waits for.
type ReadyKind int

// The kinds of readiness.
const (
	// ReadyNone is the empty value: nothing to wait for.
	ReadyNone ReadyKind = iota
	// ReadyExit waits for the process's own exit with status 0; only a
	// caller that allows it accepts "exit" (a target's exit is no start).
	ReadyExit
	// ReadyTCP waits until Addr accepts a connection.
	ReadyTCP
	// ReadyHTTP waits for a 2xx answer to a GET of URL.
	ReadyHTTP
	// ReadyStdout waits for a line of output that Pattern matches.
	ReadyStdout
)

// Ready is a parsed readiness value (a target's or a spawn cycle's
// `ready:`). Each caller probes it in its own way and at its own pace
// (runners/watch for a target, runners/spawn for a cycle): parsing it
// checks its syntax only.
type Ready struct {
	Kind    ReadyKind
	Addr    string         // ReadyTCP: host:port
	URL     string         // ReadyHTTP: http://… or https://…
	Pattern *regexp.Regexp // ReadyStdout
}

// ParseReady parses a readiness value: empty (ReadyNone), tcp://host:port,
// http://… or https://…, stdout:/regex/ (the slashes may be left out) and,
// when exitOK, exit.
func ParseReady(s string, exitOK bool) (Ready, error) {
	switch {
	case s == "":
		return Ready{Kind: ReadyNone}, nil
	case s == "exit" && exitOK:
		return Ready{Kind: ReadyExit}, nil
	case strings.HasPrefix(s, "http://"), strings.HasPrefix(s, "https://"):
		return Ready{Kind: ReadyHTTP, URL: s}, nil
	case strings.HasPrefix(s, "tcp://"):
		addr := strings.TrimPrefix(s, "tcp://")
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return Ready{}, fmt.Errorf("parsing ready %q: %w", s, err)
		}
		return Ready{Kind: ReadyTCP, Addr: addr}, nil
	case strings.HasPrefix(s, "stdout:"):
		expr := strings.TrimPrefix(s, "stdout:")
		if len(expr) >= 2 && strings.HasPrefix(expr, "/") && strings.HasSuffix(expr, "/") {
			expr = expr[1 : len(expr)-1]
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return Ready{}, fmt.Errorf("parsing ready %q: %w", s, err)
		}
		return Ready{Kind: ReadyStdout, Pattern: re}, nil
	}
	want := "http://, https://, tcp://host:port or stdout:/regex/"
	if exitOK {
		want = "exit, " + want
	}
	return Ready{}, fmt.Errorf("parsing ready %q: want %s", s, want)
}
