// Command sigint starts an embedded cluster, prints "dir=<dir> pid=<pid>",
// and on SIGINT stops the cluster and exits: the test of cleanup on Ctrl-C.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/benchtui/benchtui/runners/pgload"
)

func main() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	e, err := pgload.StartEmbedded(context.Background(), pgload.EmbeddedOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("dir=%s pid=%d\n", e.Dir(), e.PID())
	<-sigs
	// Twice, as a signal path and a deferred cleanup both would.
	if err := e.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := e.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("stopped")
}
