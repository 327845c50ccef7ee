package runners

import (
	"context"
	"fmt"
	"net"
	"runtime"
)

// DialsPerCPU bounds the connections this process opens at once, per CPU
// (GOMAXPROCS). Workers past it wait for a turn before they dial: a load
// of 100,000 workers or subscribers that all connect at the step's start
// would otherwise keep as many goroutines in connect(2), whose cost grows
// with the connections already open, and the engine's own clock would
// wait seconds for a turn, the step outliving its time. A wait for a turn
// is part of its operation's latency, as a connection pool's wait is.
const DialsPerCPU = 128

// dialing holds a token per connection being opened.
var dialing = make(chan struct{}, DialsPerCPU*runtime.GOMAXPROCS(0))

// Dial opens a connection with d once a dialling turn is free (DialsPerCPU),
// or returns ctx's error if ctx ends first.
func Dial(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	select {
	case dialing <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-dialing }()
	return d.DialContext(ctx, network, addr)
}

// DialFunc is Dial with d, in the shape of http.Transport.DialContext.
func DialFunc(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		return Dial(ctx, d, network, addr)
	}
}

// FreeLoopbackPort returns a TCP port of 127.0.0.1 that was free a moment
// ago, for a server benchtui starts (one may take it first: retry).
func FreeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}
