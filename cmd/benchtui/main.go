// Command benchtui is an interactive terminal console for load, soak and
// regression benchmarks of server software, and the same engine headless
// for CI. See README.md for the commands.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/benchtui/benchtui/runners/reap"
)

// Exit codes: 0 all passed, 1 a check or comparison failed or an output
// was lost, 2 usage or plan error.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

type command func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// sweepGrace is how long what benchtui started and left running gets
// between SIGTERM and SIGKILL on the way out (reap.Sweep).
const sweepGrace = 2 * time.Second

func main() {
	if len(os.Args) == 2 && os.Args[1] == reap.ReaperCommand {
		os.Exit(reap.RunReaper())
	}
	if err := reap.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "benchtui: warning:", err)
	}
	stop := startProfile(os.Getenv("BENCHTUI_CPUPROFILE"))
	os.Unsetenv("BENCHTUI_CPUPROFILE") // not for the demo servers and targets it starts
	quietQUIC()
	code := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	stop()
	exit(code)
}

// exit ends what benchtui started and left running (reap.Sweep), then
// exits with code.
func exit(code int) {
	if err := reap.Sweep(sweepGrace); err != nil {
		fmt.Fprintln(os.Stderr, "benchtui: warning: ending the processes it started:", err)
	}
	os.Exit(code)
}

// startProfile writes a CPU profile to path (BENCHTUI_CPUPROFILE), for
// looking into the generator's own cost.
func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtui: cpu profile:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "benchtui: cpu profile:", err)
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// run dispatches to a subcommand; with none (or a plan path) it opens the
// console. -h, -help or --help anywhere before "--" prints the help of the
// subcommand (or of the console) on stdout and exits 0; a first word that
// is neither a subcommand nor a plan is an unknown command (exit 2). A
// write to stdout that fails makes the exit code at least 1 (exitFail),
// with a message on stderr: an output lost is never a success.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	out := &checkedOutput{w: stdout}
	return out.exitCode(dispatch(ctx, args, out, out.stderrFor(stderr)), stderr)
}

// dispatch runs the command args name.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return cmdConsole(ctx, args, stdout, stderr)
	}
	switch args[0] {
	case "-h", "-help", "--help":
		printUsage(stdout)
		return exitOK
	case "-v", "--version":
		return cmdVersion(ctx, nil, stdout, stderr)
	}
	c, ok := lookupCommand(args[0])
	if ok {
		args = args[1:]
	} else if !isPlanArg(args[0]) {
		return unknownCommand(args[0], stderr)
	} else {
		c, _ = helpTopic(consoleName)
	}
	if wantsHelp(args) {
		printHelp(stdout, c)
		return exitOK
	}
	return c.run(ctx, args, stdout, stderr)
}
