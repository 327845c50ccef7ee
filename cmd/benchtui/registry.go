package main

import (
	"os"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/grpcload"
	"github.com/benchtui/benchtui/runners/httpload"
	"github.com/benchtui/benchtui/runners/loads"
	"github.com/benchtui/benchtui/runners/pgload"
	"github.com/benchtui/benchtui/runners/quicload"
	"github.com/benchtui/benchtui/runners/redisload"
	"github.com/benchtui/benchtui/runners/shutdown"
	"github.com/benchtui/benchtui/runners/spawn"
	"github.com/benchtui/benchtui/runners/sse"
	"github.com/benchtui/benchtui/runners/wsload"
)

// kinds is every runner kind benchtui ships, handed to the pl decoder,
// the engine and the console. A new protocol is one package under runners/
// and one line here.
var kinds = runners.MustRegistry(append([]runners.Kind{
	httpload.Kind(),  // runner: http
	sse.Kind(),       // runner: sse
	pgload.Kind(),    // runner: postgres, and the verify: list of any group
	quicload.Kind(),  // runner: quic
	redisload.Kind(), // runner: redis
	grpcload.Kind(),  // runner: grpc
	spawn.Kind(),     // runner: spawn
	shutdown.Kind(),  // runner: shutdown
	wsload.Kind(),    // runner: websocket
	// a group's loads: list, each load of one of these kinds
	loads.Kind(httpload.Kind(), sse.Kind(), pgload.Kind(), quicload.Kind(), spawn.Kind(), grpcload.Kind(), wsload.Kind()),
}, testHookKinds...)...)

// quietQUIC stops quic-go's UDP buffer-size warning, which it writes with
// the standard log package and would land on the console's screen (the
// doctor command reports the buffer sizes instead).
func quietQUIC() {
	const env = "QUIC_GO_DISABLE_RECEIVE_BUFFER_WARNING"
	if os.Getenv(env) == "" {
		_ = os.Setenv(env, "true")
	}
}
