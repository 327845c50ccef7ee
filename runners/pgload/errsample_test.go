package pgload_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/benchtui/benchtui/runners/pgload/pgtest"
	"github.com/benchtui/benchtui/runners/runnertest"
)

// TestErrorSamplesKeepTheMessage: an error pgx raises in the client (the
// args do not fit the statement) has no SQLSTATE, only its words: the
// step keeps them as an error sample of its kind, as it keeps the
// server's message of a SQLSTATE error, a secret in one redacted.
func TestErrorSamplesKeepTheMessage(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	const token = "tok3n-value"
	a := runnertest.RunPlan(t, testRegistry, `version: 1
groups:
  - id: E
    runner: postgres
    postgres:
      dsn: "${DSN}"
      statements:
        - {name: args, sql: "SELECT $1::int + $2::int", args: ["1"]}
        - {name: zero, sql: "SELECT 1 / (random() * 0)::int"}
        - {name: secret, sql: "SELECT '${API_TOKEN}'::int"}
    load: {concurrency: 2}
    duration: 300ms
`, map[string]string{"DSN": dsn, "API_TOKEN": token})
	st := a.Steps[0]
	t.Logf("error kinds %v, samples %q", st.ErrorKinds, st.ErrorSamples)
	for kind, want := range map[string]string{"other": "argument", "sqlstate_22012": "division by zero", "sqlstate_22P02": "[redacted]"} {
		if st.ErrorKinds[kind] == 0 {
			t.Errorf("no %s errors in %v", kind, st.ErrorKinds)
			continue
		}
		got := st.ErrorSamples[kind]
		if len(got) == 0 || !strings.Contains(got[0], want) {
			t.Errorf("error_samples[%s] = %q, want the message (%q)", kind, got, want)
		}
	}
	data, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), token) {
		t.Errorf("the artifact holds the token: %s", st.ErrorSamples)
	}
}
