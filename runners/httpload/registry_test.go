package httpload

import "github.com/benchtui/benchtui/runners"

// testRegistry knows the http kind only.
var testRegistry = runners.MustRegistry(Kind())
