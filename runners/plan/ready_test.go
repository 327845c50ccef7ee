package plan

import "testing"

// TestParseReady: each readiness grammar parses to its kind, exit only
// where allowed, and bad syntax is an error.
func TestParseReady(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in     string
		exitOK bool
		want   ReadyKind
		bad    bool
	}{
		{"", false, ReadyNone, false},
		{"exit", true, ReadyExit, false},
		{"exit", false, 0, true},
		{"tcp://127.0.0.1:1", false, ReadyTCP, false},
		{"https://127.0.0.1:1/ready", true, ReadyHTTP, false},
		{"stdout:/^up$/", false, ReadyStdout, false},
		{"stdout:(", false, 0, true},
		{"udp://x", true, 0, true},
	}
	for _, c := range cases {
		r, err := ParseReady(c.in, c.exitOK)
		if (err != nil) != c.bad || err == nil && r.Kind != c.want {
			t.Errorf("ParseReady(%q, %v) = %+v, %v; want kind %d, error %v", c.in, c.exitOK, r, err, c.want, c.bad)
		}
	}
	if r, _ := ParseReady("stdout:/^up$/", false); !r.Pattern.MatchString("up") {
		t.Errorf("pattern %v does not match its line", r.Pattern)
	}
}
