package sse

import "github.com/benchtui/benchtui/runners"

// testRegistry knows the sse kind only.
var testRegistry = runners.MustRegistry(Kind())
