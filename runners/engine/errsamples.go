package engine

import (
	"unicode/utf8"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// errorSample is an operation's error detail as a step keeps it: its
// secrets redacted first (a cut must not leave half of one), then its
// control characters escaped, then cut to artifacts.MaxErrorSampleBytes
// on a rune boundary, "…" marking the cut.
func errorSample(redact func(string) string, detail string) string {
	s := plan.Printable(redact(detail))
	if len(s) <= artifacts.MaxErrorSampleBytes {
		return s
	}
	const mark = "…"
	cut := artifacts.MaxErrorSampleBytes - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}
