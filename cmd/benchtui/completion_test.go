package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// completionScript writes the script `benchtui completion shell` prints
// to a file in a folder that also holds a plan and an artifact.
func completionScript(t *testing.T, shell string) (script, dir string) {
	t.Helper()
	code, stdout, stderr := runMain(t, "completion", shell)
	if code != exitOK || stderr != "" {
		t.Fatalf("completion %s: exit %d, stderr %s", shell, code, stderr)
	}
	dir = t.TempDir()
	for _, name := range []string{"bench.yaml", "G5-1.json", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script = filepath.Join(dir, "benchtui."+shell)
	if err := os.WriteFile(script, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return script, dir
}

// shellOrSkip is the path of shell, or skips t when it is not installed.
func shellOrSkip(t *testing.T, shell string) string {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed: its completion script is not checked", shell)
	}
	return path
}

// TestBashCompletion: the script parses (bash -n) and its function
// completes subcommands, flags, --format values and plan files.
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	bash := shellOrSkip(t, "bash")
	script, dir := completionScript(t, "bash")
	if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	// complete LINE: the words of LINE, the last (maybe empty) completed.
	driver := `source "$1"
complete_line() {
	read -ra COMP_WORDS <<<"$1"
	[[ $1 == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_benchtui
	echo "$1=>${COMPREPLY[*]}"
}
complete_line "benchtui r"
complete_line "benchtui run --f"
complete_line "benchtui run --format "
complete_line "benchtui run "
complete_line "benchtui compare "
complete_line "benchtui completion "
complete_line "benchtui help d"
complete_line "benchtui -o out r"
complete_line "benchtui run --ex"
complete_line "benchtui run --junit n"
complete_line "benchtui report --format "
`
	cmd := exec.Command(bash, "-c", driver, "bash", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	want := "benchtui r=>run report\n" +
		"benchtui run --f=>--fail-on-leak --format\n" +
		"benchtui run --format =>text json csv\n" +
		"benchtui run =>bench.yaml\n" +
		"benchtui compare =>G5-1.json\n" +
		"benchtui completion =>bash zsh fish\n" +
		"benchtui help d=>doctor demo-target\n" +
		"benchtui -o out r=>run report\n" +
		"benchtui run --ex=>--export-csv --export-json --export-markdown\n" +
		"benchtui run --junit n=>notes.txt\n" +
		"benchtui report --format =>markdown html benchstat\n"
	if string(out) != want {
		t.Errorf("completions:\n%s\nwant:\n%s", out, want)
	}
}

// TestZshCompletion: the script parses and registers its function with
// compdef (zsh runs the bash script through bashcompinit).
func TestZshCompletion(t *testing.T) {
	t.Parallel()
	zsh := shellOrSkip(t, "zsh")
	script, dir := completionScript(t, "zsh")
	cmd := exec.Command(zsh, "-f", "-c", `zsh -n "$1" && source "$1" && print -r -- "${_comps[benchtui]}"`, "zsh", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "_benchtui") {
		t.Errorf("zsh: %v\n%s", err, out)
	}
}

// TestFishCompletion: fish completes the command lines with the script
// loaded (complete -C).
func TestFishCompletion(t *testing.T) {
	t.Parallel()
	fish := shellOrSkip(t, "fish")
	script, dir := completionScript(t, "fish")
	cmd := exec.Command(fish, "--no-config", "-c", `source $argv[1]; and complete -C "benchtui r"; and complete -C "benchtui run --format "; and complete -C "benchtui report --format "; and complete -C "benchtui run --export-j"`, script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
	out, err := cmd.CombinedOutput()
	got := string(out)
	for _, want := range []string{"run\t", "report\t", "json\t", "csv\t", "benchstat\t", "--export-json\t"} {
		if err != nil || !strings.Contains(got, want) {
			t.Errorf("fish: %v, no %q in:\n%s", err, want, got)
		}
	}
}
