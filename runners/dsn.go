package runners

// DSNSource is implemented by runners whose group has a database of its
// own (a postgres group with dsn: embedded): a sql action's
// `dsn: embedded` is its DSN, known once the step is prepared.
type DSNSource interface {
	DSN() string
}
