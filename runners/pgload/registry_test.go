package pgload_test

import (
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/pgload"
)

// testRegistry knows the postgres kind (and its verify addon) only.
var testRegistry = runners.MustRegistry(pgload.Kind())
