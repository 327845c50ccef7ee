package main

import (
	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/pgload"
)

// Group-level `verify:` lists (accepted = SQL-visible) are checked in every
// group's plan and run after every step of any runner.
func init() {
	runners.RegisterGroupCheck(pgload.ValidateVerify)
	runners.RegisterStepHook(pgload.VerifyChecks)
}
