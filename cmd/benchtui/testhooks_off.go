//go:build !testhooks

package main

import "github.com/benchtui/benchtui/runners"

// testHookKinds are none in a release build; `go build -tags testhooks`
// adds `runner: crash` (testhooks_on.go) for the tests of the panic path.
var testHookKinds []runners.Kind
