package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/template"
)

//go:embed completion/*.tmpl
var completionFS embed.FS

// completionTemplates are the scripts of `benchtui completion`, one per
// shell, filled from the subcommand table so that they never miss a
// subcommand or a flag. zsh uses the bash script through bashcompinit.
var completionTemplates = template.Must(template.New("completion").ParseFS(completionFS, "completion/*.tmpl"))

// cmdCompletion prints the completion script of a shell.
func cmdCompletion(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || completionTemplates.Lookup(args[0]+".tmpl") == nil {
		fmt.Fprintln(stderr, "usage: benchtui completion bash|zsh|fish")
		return exitUsage
	}
	var data any = bashData()
	if args[0] == "fish" {
		data = fishData()
	}
	if err := completionTemplates.ExecuteTemplate(stdout, args[0]+".tmpl", data); err != nil {
		fmt.Fprintln(stderr, "benchtui completion:", err)
		return exitFail
	}
	return exitOK
}

// cliFlag is one flag of a subcommand, as the completions see it.
type cliFlag struct {
	name, usage string
	value       bool // takes a value (not a bool flag)
}

// dashed is the flag as offered: -o for one letter, --duration else.
func (f cliFlag) dashed() string {
	if len(f.name) == 1 {
		return "-" + f.name
	}
	return "--" + f.name
}

// flagsOf lists the flags of c, -h and --help last.
func flagsOf(c subcommand) []cliFlag {
	var out []cliFlag
	if c.flags != nil {
		c.flags().VisitAll(func(f *flag.Flag) {
			b, ok := f.Value.(interface{ IsBoolFlag() bool })
			_, usage := flag.UnquoteUsage(f)
			out = append(out, cliFlag{f.Name, strings.SplitN(usage, "\n", 2)[0], !ok || !b.IsBoolFlag()})
		})
	}
	return append(out, cliFlag{"h", "show help", false}, cliFlag{"help", "show help", false})
}

// The kinds of a flag's value that completes as a path, beside the
// argKinds of usage.go (plan files, artifacts).
const (
	argsFolders argKind = "folders" // a folder
	argsFile    argKind = "file"    // any file or folder
)

// flagValueKind is what the value of subcommand cmd's flag name
// completes as; "" for a value that is not a path.
func flagValueKind(cmd, name string) argKind {
	switch name {
	case "baseline":
		return argsArtifacts
	case "plan":
		return argsPlan
	case "ready-file", "watch", "export-json", "export-csv", "export-markdown", "junit", "requests":
		return argsFile
	case "o":
		if cmd == "report" || cmd == "import" {
			return argsFile // the report or the plan itself
		}
		return argsFolders // where artifacts go
	}
	return ""
}

// bashCase is one subcommand's line of the bash script's case: Kinds
// lists its path flags as -flag=kind words (flagValueKind).
type bashCase struct{ Pattern, Flags, Args, Formats, Kinds string }

// bashTemplateData fills bash.tmpl.
type bashTemplateData struct {
	Commands, ConsoleFlags, ConsoleKinds string
	ImportKinds                          string
	Cases                                []bashCase
	ValueFlags                           string
}

func bashData() bashTemplateData {
	var d bashTemplateData
	var names []string
	value := map[string]bool{}
	for _, c := range subcommands() {
		var fl, kinds []string
		for _, f := range flagsOf(c) {
			fl = append(fl, f.dashed())
			if f.value {
				value["-"+f.name], value["--"+f.name] = true, true
			}
			if k := flagValueKind(c.name, f.name); k != "" && f.value {
				kinds = append(kinds, "-"+f.name+"="+string(k), "--"+f.name+"="+string(k))
			}
		}
		if c.name == consoleName {
			d.ConsoleFlags, d.ConsoleKinds = strings.Join(fl, " "), strings.Join(kinds, " ")
			continue
		}
		names = append(names, c.name)
		d.Cases = append(d.Cases, bashCase{Pattern: c.name, Flags: strings.Join(fl, " "),
			Args: string(c.args), Formats: strings.Join(c.formats, " "), Kinds: strings.Join(kinds, " ")})
	}
	d.Commands = strings.Join(names, " ")
	d.ImportKinds = strings.Join(importKinds, " ")
	d.ValueFlags = casePattern(value)
	return d
}

// casePattern joins the keys set in m as a case pattern: "-g|-o".
func casePattern(m map[string]bool) string {
	var keys []string
	for k, ok := range m {
		if ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return strings.Join(keys, "|")
}

// fishCommand, fishFlag and fishArgs are the lines of fish.tmpl; their
// strings are quoted for fish.
type (
	fishCommand struct{ Name, About string }
	// fishFlag's Values are its words (--format), Paths the completion of
	// a path value other than any file (File).
	fishFlag struct {
		Cond, Option, Values, Paths, Usage string
		File, Value                        bool
	}
	fishArgs         struct{ Cond, Completion string }
	fishTemplateData struct {
		Commands []fishCommand
		Flags    []fishFlag
		Args     []fishArgs
		Names    string
	}
)

// fishArgCompletions are the fish completions of each kind of argument
// or flag value (__benchtui_files is fish.tmpl's: fish's own
// __fish_complete_suffix offers every other file after the matching ones).
var fishArgCompletions = map[argKind]string{
	argsPlan:      `-a '(__benchtui_files .yaml .yml)'`,
	argsArtifacts: `-a '(__benchtui_files .json)'`,
	argsFolders:   `-a '(__fish_complete_directories)'`,
	argsShells:    `-a 'bash zsh fish'`,
}

func fishData() fishTemplateData {
	var d fishTemplateData
	var names []string
	for _, c := range subcommands() {
		cond := fishQuote("__fish_seen_subcommand_from " + c.name)
		if c.name == consoleName {
			cond = "__fish_use_subcommand"
		} else {
			names = append(names, c.name)
			d.Commands = append(d.Commands, fishCommand{c.name, fishQuote(strings.SplitN(c.about, "\n", 2)[0])})
		}
		for _, f := range flagsOf(c) {
			opt := "-l " + f.name
			if len(f.name) == 1 {
				opt = "-s " + f.name
			}
			kind := flagValueKind(c.name, f.name)
			ff := fishFlag{Cond: cond, Option: opt, Usage: fishQuote(f.usage), File: kind == argsFile, Value: f.value}
			switch {
			case f.name == "format":
				ff.Values = fishQuote(strings.Join(c.formats, " "))
			case fishArgCompletions[kind] != "":
				ff.Paths = fishArgCompletions[kind]
			}
			d.Flags = append(d.Flags, ff)
		}
		if c.args == argsImport {
			d.Args = append(d.Args, fishImportArgs(c.name)...)
		}
		if comp, ok := fishArgCompletions[c.args]; ok {
			d.Args = append(d.Args, fishArgs{cond, comp})
		}
	}
	d.Names = fishQuote(strings.Join(names, " "))
	d.Args = append(d.Args, fishArgs{fishQuote("__fish_seen_subcommand_from help"), "-a " + d.Names})
	return d
}

// fishQuote quotes s for fish: single quotes, with \ and ' escaped.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// fishImportArgs complete import's input kind, then any file.
func fishImportArgs(cmd string) []fishArgs {
	kinds := strings.Join(importKinds, " ")
	return []fishArgs{
		{fishQuote("__fish_seen_subcommand_from " + cmd + "; and not __fish_seen_subcommand_from " + kinds), "-a " + fishQuote(kinds)},
		{fishQuote("__fish_seen_subcommand_from " + cmd + "; and __fish_seen_subcommand_from har vegeta"), "-F"},
	}
}
