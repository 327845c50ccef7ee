package loads_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/grpcload"
	"github.com/benchtui/benchtui/runners/httpload"
	"github.com/benchtui/benchtui/runners/loads"
	"github.com/benchtui/benchtui/runners/shutdown"
	"github.com/benchtui/benchtui/runners/sse"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testRegistry has the kinds a load may use here, and shutdown, which it
// may not.
var testRegistry = runners.MustRegistry(httpload.Kind(), sse.Kind(), grpcload.Kind(), shutdown.Kind(),
	loads.Kind(httpload.Kind(), sse.Kind(), grpcload.Kind(), shutdown.Kind()))
