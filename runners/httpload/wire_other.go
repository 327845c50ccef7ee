//go:build !linux

package httpload

import "net"

// wire is a lean connection's reads and writes: plain Write and Read
// (on Linux a request is written from the poller's read callback).
type wire struct{ conn net.Conn }

func newWire(conn net.Conn) *wire { return &wire{conn: conn} }

// send writes b.
func (w *wire) send(b []byte) error {
	_, err := w.conn.Write(b)
	return err
}

// Read reads the connection.
func (w *wire) Read(p []byte) (int, error) { return w.conn.Read(p) }
