package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// envDefaults are the environment variables that set the defaults of
// common flags of `run` and the console. A flag on the command line wins
// over its variable; a variable that is set but empty counts as unset.
var envDefaults = []struct{ flag, env string }{
	{"o", "BENCHTUI_ARTIFACTS"},
	{"duration", "BENCHTUI_DURATION"},
	{"metrics-addr", "BENCHTUI_METRICS_ADDR"},
}

// applyEnv sets, after parsing, each flag of fs that has a variable in
// envDefaults and was not on the command line from that variable. A bad
// value is an error naming the variable:
// `environment BENCHTUI_DURATION="soon": want a duration (it sets -duration)`.
func applyEnv(fs *flag.FlagSet) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, d := range envDefaults {
		v := os.Getenv(d.env)
		if v == "" || given[d.flag] || fs.Lookup(d.flag) == nil {
			continue
		}
		if err := fs.Set(d.flag, v); err != nil {
			kind, _ := flag.UnquoteUsage(fs.Lookup(d.flag))
			return fmt.Errorf("environment %s=%q: want a %s (it sets -%s): %w", d.env, v, kind, d.flag, err)
		}
	}
	return nil
}

// parseWithEnv parses a subcommand's args with fs (flags before or after
// the positional arguments, which it returns; errors to stderr), then
// sets from envDefaults the flags the command line left unset.
func parseWithEnv(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(stderr)
	pos, err := parseInterspersed(fs, args)
	if err == nil {
		err = applyEnv(fs)
	}
	return pos, err
}

// envCommands are the subcommands that parse with parseWithEnv: only
// their flags take the variables' values (report's -o, a file, does not).
var envCommands = map[string]bool{consoleName: true, "run": true, "bisect": true}

// envHelp lists the variables that set the flags of c, one
// "  NAME   sets -flag" line each; "" when none does.
func envHelp(c subcommand) string {
	if c.flags == nil || !envCommands[c.name] {
		return ""
	}
	fs := c.flags()
	var sb strings.Builder
	for _, d := range envDefaults {
		if f := fs.Lookup(d.flag); f != nil {
			fmt.Fprintf(&sb, "  %-22s sets -%s\n", d.env, d.flag)
		}
	}
	return sb.String()
}
