package quicload

import "github.com/benchtui/benchtui/runners"

// testRegistry knows the quic kind only.
var testRegistry = runners.MustRegistry(Kind())
