package main

import (
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/pgload"
)

// Group-level `verify:` lists (accepted = SQL-visible) run after every step
// of any runner.
func init() { runners.RegisterStepHook(pgload.VerifyChecks) }
