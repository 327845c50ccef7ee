package main

// The Server-Sent Events runner (`runner: sse`) registers itself.
import _ "github.com/benchtui/benchtui/runners/sse"
