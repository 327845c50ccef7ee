package main

// The postgres runner (`runner: postgres`) and the group-level `verify:` list.
import _ "github.com/benchtui/benchtui/runners/pgload"
