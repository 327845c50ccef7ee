package artifacts

// ActionResult is what a plan action (`actions:`) did, kept in its event.
// Text fields are redacted: no secret of a URL, DSN or command survives.
type ActionResult struct {
	// Name is the action's name or, without one, its kind and argument.
	Name string `json:"name"`
	// Kind is signal, restart, exec, http or sql.
	Kind string `json:"kind"`
	// AtS is the offset of the step the action was due at, in seconds of
	// active (unpaused) time; the event's t is when it started.
	AtS float64 `json:"at_s"`
	// OK says the action did what it should: a signal was delivered (and
	// a KILL, TERM or INT ended the target), a restarted target is ready,
	// a command exited 0, a request got an expected status, a statement
	// ran.
	OK bool `json:"ok"`
	// ExitCode is a command's exit code (-1 when a signal ended it).
	ExitCode *int `json:"exit_code,omitempty"`
	// Status is an HTTP action's response status.
	Status int `json:"status,omitempty"`
	// Rows is the count of rows a SQL statement affected.
	Rows *int64 `json:"rows,omitempty"`
	// PID is the process the action signalled, or the restarted target's
	// new process; OldPID the process a restart replaced.
	PID    int `json:"pid,omitempty"`
	OldPID int `json:"old_pid,omitempty"`
	// Error says what went wrong ("timeout after 5s", a refused
	// connection, a SQL error).
	Error string `json:"error,omitempty"`
	// Output is the start of a command's output or a response body, at
	// most 4 KiB.
	Output string `json:"output,omitempty"`
	// DurationMS is how long the action took.
	DurationMS float64 `json:"duration_ms"`
}
