package engine

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/benchtui/benchtui/artifacts"
)

// TestErrorSampleIsSafeText: a detail is redacted before it is cut (a
// secret at the cut is not left half shown), its control characters are
// escaped, and it is cut on a rune boundary within the bound.
func TestErrorSampleIsSafeText(t *testing.T) {
	redact := func(s string) string { return strings.ReplaceAll(s, "s3cret", "[redacted]") }
	long := strings.Repeat("é", artifacts.MaxErrorSampleBytes) + "s3cret"
	for detail, want := range map[string]string{
		"bad \x1b[31mred\x1b[0m\nline s3cret":                           `bad \x1b[31mred\x1b[0m\nline [redacted]`,
		strings.Repeat("a", artifacts.MaxErrorSampleBytes-3) + "s3cret": "",
	} {
		got := errorSample(redact, detail)
		if want != "" && got != want {
			t.Errorf("errorSample(%q) = %q, want %q", detail, got, want)
		}
		if strings.Contains(got, "s3cr") || len(got) > artifacts.MaxErrorSampleBytes {
			t.Errorf("errorSample(%q) = %q: a secret's part, or past the bound", detail, got)
		}
	}
	got := errorSample(redact, long)
	if !utf8.ValidString(got) || len(got) > artifacts.MaxErrorSampleBytes || !strings.HasSuffix(got, "…") {
		t.Errorf("a long detail cut to %d bytes (valid UTF-8 %v): want within %d, marked", len(got), utf8.ValidString(got), artifacts.MaxErrorSampleBytes)
	}
}
