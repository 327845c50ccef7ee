package demo

import (
	_ "embed" // the demo plan
)

// PlanYAML is the built-in demo plan. It expects ${BENCHTUI} (the benchtui
// binary) and ${DEMO_HTTP} (a free loopback address) to be supplied.
//
//go:embed plan.yaml
var PlanYAML []byte

// PostgresGroupsYAML are groups appended to the demo plan's groups when
// Postgres binaries are on the machine (they use dsn: embedded).
//
//go:embed plan-postgres.yaml
var PostgresGroupsYAML []byte

// PlanName is how the built-in plan is named in messages and artifacts.
const PlanName = "<built-in demo plan>"
