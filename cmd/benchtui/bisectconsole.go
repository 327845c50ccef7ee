package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/benchtui/benchtui/ui"
)

// runConsole runs the bisection under its live view on term (--console).
// The progress lines go to benchtui.log in the artifacts folder, never to
// the screen; the result goes to stdout, and why the bisection ended
// without one to stderr, once the view has closed, as without --console.
// Quitting the view cancels the bisection, which removes its worktree
// before this returns.
func (b *bisector) runConsole(ctx context.Context, term *os.File, stdout, stderr io.Writer) int {
	logf, err := openConsoleLog(b.out)
	if err != nil {
		fmt.Fprintln(stderr, "benchtui bisect:", err)
		return exitUsage
	}
	defer logf.Close()
	fmt.Fprintf(logf, "bisect --console: group %s from %s to %s\n", b.group.ID, b.good.short(), b.bad.short())
	log.SetOutput(logf) // a library's log line must not land on the screen
	defer log.SetOutput(stderr)
	var result, errs bytes.Buffer
	b.stderr, b.errs = logf, io.MultiWriter(logf, &errs)
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan ui.BisectEvent, 16)
	b.feed = &bisectFeed{ctx: bctx, ch: events}
	done := make(chan int, 1)
	go func() {
		defer close(events)
		done <- b.run(bctx, io.MultiWriter(&result, logf))
	}()
	p := tea.NewProgram(ui.NewBisectView(events, cancel), tea.WithContext(ctx), tea.WithOutput(term), tea.WithFPS(20))
	_, err = p.Run()
	cancel() // the view has closed: a bisection still running stops
	code := <-done
	stdout.Write(result.Bytes())
	stderr.Write(errs.Bytes())
	if err != nil && !errors.Is(err, tea.ErrInterrupted) && !errors.Is(err, tea.ErrProgramKilled) {
		fmt.Fprintln(stderr, "benchtui bisect:", err)
		return max(code, exitFail)
	}
	return code
}
