// Package reqlog writes the request stream of `benchtui run --requests
// FILE`: one record per operation, in vegeta's results encoding (CSV or
// JSON, by the file's extension) so that `vegeta report` and `vegeta plot`
// read it. Records reach the file through a bounded buffer written by one
// goroutine, off the workers' path: when the buffer is full or the file
// has reached its cap, records are dropped and counted, never waited for.
package reqlog
