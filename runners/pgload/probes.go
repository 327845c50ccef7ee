package pgload

// EmbeddedDSN is the DSN of the group's embedded cluster once Prepare has
// started it, "" otherwise: a probe's `dsn: embedded` reads it
// (engine.EmbeddedDSN).
func (r *runner) EmbeddedDSN() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.embedded == nil && !r.joined {
		return ""
	}
	return r.dsn
}
