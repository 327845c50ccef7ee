//go:build !unix

package main

// stdoutWasClosed is false where the runtime does not reopen a closed
// stdout.
func stdoutWasClosed() bool { return false }
